// The MCP tools over a whole site: its map, and crawl jobs (pro: the free endpoint does not list them).
import { queryParams } from '../../engine/index.ts';
import type { OpenApiDocument } from './backend.ts';
import { objectOf, paramTree, type OpenApiParameter } from './schemas.ts';
import { api, json, PAGING, paged, readOnly, text, type Schema, type Tool } from './tool-kit.ts';

/** The map and crawl job tools of a Refract described by `doc`. */
export function siteTools(doc: OpenApiDocument): Tool[] {
  const mapParams = (doc.paths['/map']?.get?.parameters ?? []) as OpenApiParameter[];
  const crawlBody = (doc.paths['/crawls']?.post?.requestBody as { content?: Record<string, { schema?: Schema }> })
    ?.content?.['application/json']?.schema ?? { type: 'object' };
  const jobId: Schema = {
    type: 'object',
    properties: { id: { type: 'string', description: 'The crawl job id.' } },
    required: ['id'],
  };
  return [
    {
      name: 'map',
      route: 'map',
      title: 'Site map',
      description:
        "A site's URLs without rendering: its sitemaps (nested, gzipped) and the start page's links; same site, de-duplicated. One URL a line, in pages of `maxLength` characters.",
      inputSchema: {
        type: 'object',
        properties: { ...(objectOf(paramTree(mapParams)).properties as object), ...PAGING },
        required: ['url'],
      },
      annotations: readOnly,
      async run(args, backend) {
        const { maxLength: _m, cursor: _c, ...rest } = args;
        const { data } = await api(backend, 'GET', `/map?${queryParams(rest)}`);
        return paged(((data?.urls as string[]) ?? []).join('\n'), args);
      },
    },
    {
      name: 'crawl_start',
      route: 'crawls',
      title: 'Start a crawl',
      description:
        'Starts a crawl job (pro): a site from `start`, a list of `urls` or a `sitemap`, each page with the API `query` given. Answers its id; follow it with crawl_status and crawl_results.',
      inputSchema: { ...crawlBody, type: 'object' },
      annotations: { readOnlyHint: false, openWorldHint: true },
      async run(args, backend) {
        return { content: [text(json((await api(backend, 'POST', '/crawls', args)).data))] };
      },
    },
    {
      name: 'crawl_status',
      route: 'crawls',
      title: 'Crawl status',
      description: "A crawl job's status and its pages done, failed and queued.",
      inputSchema: { ...jobId, type: 'object' },
      annotations: readOnly,
      async run(args, backend) {
        return {
          content: [text(json((await api(backend, 'GET', `/crawls/${encodeURIComponent(String(args.id))}`)).data))],
        };
      },
    },
    {
      name: 'crawl_results',
      route: 'crawls',
      title: 'Crawl results',
      description:
        "A page of a crawl job's results (one entry a page), from `cursor`; `next` is where the next page starts (null at the end).",
      inputSchema: {
        type: 'object',
        properties: {
          ...(jobId.properties as object),
          cursor: {
            type: 'string',
            default: '0',
            description: 'Where to start: 0, or the `next` of the previous page.',
          },
          limit: { type: 'integer', minimum: 1, maximum: 1000, default: 20, description: 'Results at most.' },
        },
        required: ['id'],
      },
      annotations: readOnly,
      async run(args, backend) {
        const search = queryParams({ cursor: args.cursor ?? '0', limit: args.limit ?? 20 });
        return {
          content: [
            text(
              json(
                (await api(backend, 'GET', `/crawls/${encodeURIComponent(String(args.id))}/results?${search}`)).data,
              ),
            ),
          ],
        };
      },
    },
    {
      name: 'crawl_cancel',
      route: 'crawls',
      title: 'Cancel a crawl',
      description: 'Cancels a crawl job; the pages already done stay readable.',
      inputSchema: { ...jobId, type: 'object' },
      annotations: { readOnlyHint: false, openWorldHint: true },
      async run(args, backend) {
        return {
          content: [text(json((await api(backend, 'DELETE', `/crawls/${encodeURIComponent(String(args.id))}`)).data))],
        };
      },
    },
  ];
}
