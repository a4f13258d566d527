import { z } from 'zod';
import { monitorBodySchema } from '../../crawl/index.ts';
import { ok } from './openapi-crawls.ts';
/** The monitors' paths in the OpenAPI description (server/monitors.ts answers them; docs/changes.md). */
const failure = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };
const { $schema: _, ...body } = z.toJSONSchema(monitorBodySchema, { io: 'input', target: 'draft-2020-12' });
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const paging = [
  { name: 'cursor', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'where the page starts' },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 }, description: 'at most (20)' },
];
const pro = [{ apiKey: [] }];
const when = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
const monitor = {
  type: 'object',
  required: ['id', 'url', 'query', 'createdAt', 'nextRunAt', 'runs', 'failures'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    query: { type: 'string' },
    every: { type: 'integer', description: 'milliseconds' },
    cron: { type: 'string' },
    tag: { type: 'string' },
    webhook: { type: 'object', properties: { url: { type: 'string' }, events: { type: 'array' } } },
    createdAt: { type: 'string', format: 'date-time' },
    nextRunAt: { type: 'string', format: 'date-time' },
    lastRunAt: when,
    lastStatus: { anyOf: [{ enum: ['new', 'same', 'changed', 'failed'] }, { type: 'null' }] },
    runs: { type: 'integer' },
    failures: { type: 'integer', description: 'failed reads in a row' },
  },
};
const report = {
  type: 'object',
  description: 'A change report, as `data.changes` of `GET /?changes`',
  properties: {
    status: { enum: ['new', 'same', 'changed', 'failed'] },
    tag: { type: ['string', 'null'] },
    checkedAt: { type: 'string', format: 'date-time' },
    previousAt: when,
    reason: { type: 'string' },
    diff: {
      type: 'object',
      properties: {
        content: { type: ['string', 'null'], description: 'a unified diff of the main content as Markdown' },
        fields: { type: 'object', additionalProperties: { type: 'object' }, description: '{ before, after } by path' },
      },
    },
  },
};
const next = { type: ['string', 'null'], description: 'the cursor of the next page, null at the end' };
const errors = {
  401: { description: 'EAUTH', ...failure },
  403: { description: 'EPRO (free endpoint)', ...failure },
  404: { description: "ENOTFOUND (no such monitor, or another key's)", ...failure },
};

export const MONITOR_PATHS = {
  '/monitors': {
    post: {
      operationId: 'createMonitor',
      summary: 'Watch a page: read it on a schedule with `changes` (pro endpoint)',
      security: pro,
      description:
        'A page, the query of each read, `every` or `cron`, an optional `tag` and signed `webhook` (`monitor.changed` with the report, `monitor.failed` after 3 failed reads in a row). The first read is now.',
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: {
        201: ok('created', monitor),
        400: { description: 'EINVALURL, EINVALQUERY, EINVALDATA (the message names the field)', ...failure },
        ...errors,
        429: { description: 'ERATE: the key keeps as many monitors as it may (REFRACT_MONITORS_PER_KEY)', ...failure },
      },
    },
    get: {
      operationId: 'listMonitors',
      summary: "The key's monitors, a page at a time",
      security: pro,
      parameters: paging,
      responses: {
        200: ok('a page', { type: 'object', properties: { monitors: { type: 'array', items: monitor }, next } }),
        ...errors,
      },
    },
  },
  '/monitors/{id}': {
    get: {
      operationId: 'getMonitor',
      summary: 'One monitor',
      security: pro,
      parameters: id,
      responses: { 200: ok('the monitor', monitor), ...errors },
    },
    delete: {
      operationId: 'deleteMonitor',
      summary: 'Stop a monitor and drop its history',
      security: pro,
      parameters: id,
      responses: {
        200: ok('deleted', { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } }),
        ...errors,
      },
    },
  },
  '/monitors/{id}/changes': {
    get: {
      operationId: 'getMonitorChanges',
      summary: "A monitor's changes, newest first (reads that were the same or failed are not kept)",
      security: pro,
      parameters: [...id, ...paging],
      responses: {
        200: ok('a page', { type: 'object', properties: { changes: { type: 'array', items: report }, next } }),
        ...errors,
      },
    },
  },
};
