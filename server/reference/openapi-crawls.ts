import { z } from 'zod';
import { jobBodySchema as bodySchema } from '../../crawl/index.ts';
/** The crawl jobs' paths in the OpenAPI description (server/crawls.ts answers them; README, "Crawl jobs over HTTP"). */
const failure = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };
const job = {
  type: 'object',
  required: ['id', 'status', 'pages', 'createdAt', 'finishedAt'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['queued', 'running', 'completed', 'failed', 'cancelled'] },
    pages: {
      type: 'object',
      properties: { done: { type: 'integer' }, failed: { type: 'integer' }, queued: { type: 'integer' } },
    },
    createdAt: { type: 'string', format: 'date-time' },
    finishedAt: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    code: { type: 'string', description: "why a failed job failed (ERATE when the key's quota ran out)" },
    message: { type: 'string' },
  },
};
/** A JSend success answer of `schema` as its `data`. */
export const ok = (description: string, schema: unknown) => ({
  description,
  content: {
    'application/json': { schema: { type: 'object', properties: { status: { const: 'success' }, data: schema } } },
  },
});
const { $schema: _, ...body } = z.toJSONSchema(bodySchema, { io: 'input', target: 'draft-2020-12' });
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const pro = [{ apiKey: [] }];

export const CRAWL_PATHS = {
  '/crawls': {
    post: {
      operationId: 'createCrawl',
      summary: 'Start a crawl job (pro endpoint)',
      security: pro,
      description:
        "One of `start` (follow links), `urls` or `sitemap`; the CLI's options; `query`, the API's options for every page; a signed `webhook`. Each page is one request of the key's quota.",
      requestBody: {
        required: true,
        content: {
          'application/json': {
            // From the schema that checks the body (server/crawls.ts), as the client sends it.
            schema: body,
          },
        },
      },
      responses: {
        202: ok('queued', {
          type: 'object',
          properties: { id: { type: 'string' }, status: { const: 'queued' }, url: { type: 'string' } },
        }),
        400: { description: 'EINVALURL, EINVALQUERY, EINVALDATA (the message names the field)', ...failure },
        401: { description: 'EAUTH', ...failure },
        403: { description: 'EPRO (free endpoint), EFORBIDDENURL (webhook)', ...failure },
      },
    },
  },
  '/crawls/{id}': {
    get: {
      operationId: 'getCrawl',
      summary: "A crawl job's status",
      security: pro,
      parameters: id,
      responses: { 200: ok('the job', job), 404: { description: "ENOTFOUND (or another key's job)", ...failure } },
    },
    delete: {
      operationId: 'cancelCrawl',
      summary: 'Cancel a crawl job (its results stay)',
      security: pro,
      parameters: id,
      responses: { 200: ok('the job, cancelled', job), 404: { description: 'ENOTFOUND', ...failure } },
    },
  },
  '/crawls/{id}/results': {
    get: {
      operationId: 'crawlResults',
      summary: "A crawl job's result lines, paged (or as NDJSON)",
      security: pro,
      parameters: [
        ...id,
        { name: 'cursor', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      ],
      responses: {
        200: {
          description: 'the lines `refract crawl` writes; `next` is null once the job ended and every line was given',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  status: { const: 'success' },
                  data: {
                    type: 'object',
                    properties: {
                      results: { type: 'array', items: { type: 'object' } },
                      next: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                      status: { type: 'string' },
                    },
                  },
                },
              },
            },
            'application/x-ndjson': { schema: { type: 'string' } },
          },
        },
        404: { description: 'ENOTFOUND', ...failure },
      },
    },
  },
};
