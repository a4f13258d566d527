// The MCP tools of monitors (pro: the free endpoint does not list them): watch a page, list what is watched, read a
// page's changes, stop watching. One-off change reports need no tool of their own: `extract` with `changes`.
import { queryParams } from '../../engine/index.ts';
import type { OpenApiDocument } from './backend.ts';
import { api, json, readOnly, text, type Schema, type Tool } from './tool-kit.ts';

const id: Schema = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The monitor id (`mon_…`).' } },
  required: ['id'],
};
const paging = {
  cursor: { type: 'string', default: '0', description: 'Where to start: 0, or the `next` of the previous page.' },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Entries at most.' },
};

/** The monitor tools of a Refract described by `doc`. */
export function monitorTools(doc: OpenApiDocument): Tool[] {
  const body = (doc.paths['/monitors']?.post?.requestBody as { content?: Record<string, { schema?: Schema }> })
    ?.content?.['application/json']?.schema ?? { type: 'object' };
  const page = (args: Record<string, unknown>) => queryParams({ cursor: args.cursor ?? '0', limit: args.limit ?? 20 });
  const route = (args: Record<string, unknown>) => `/monitors/${encodeURIComponent(String(args.id))}`;
  return [
    {
      name: 'watch_page',
      route: 'monitors',
      title: 'Watch a page',
      description:
        'Starts a monitor (pro): the page read on a schedule (`every`: `1h`, or `cron`) with the API `query` given, its changes kept (a diff of its content and of each field) and told to a signed `webhook`. Answers the monitor; read its changes with page_changes.',
      inputSchema: { ...body, type: 'object' },
      annotations: { readOnlyHint: false, openWorldHint: true },
      async run(args, backend) {
        return { content: [text(json((await api(backend, 'POST', '/monitors', args)).data))] };
      },
    },
    {
      name: 'list_monitors',
      route: 'monitors',
      title: 'Monitors',
      description: "The key's monitors (their pages, schedules, last status), a page at a time.",
      inputSchema: { type: 'object', properties: paging },
      annotations: readOnly,
      async run(args, backend) {
        return { content: [text(json((await api(backend, 'GET', `/monitors?${page(args)}`)).data))] };
      },
    },
    {
      name: 'page_changes',
      route: 'monitors',
      title: "A watched page's changes",
      description:
        "A monitor's changes, newest first: the first read and each change (`diff.content`, a unified diff of the page's main content; `diff.fields`, each changed field's before and after).",
      inputSchema: { type: 'object', properties: { ...(id.properties as object), ...paging }, required: ['id'] },
      annotations: readOnly,
      async run(args, backend) {
        return { content: [text(json((await api(backend, 'GET', `${route(args)}/changes?${page(args)}`)).data))] };
      },
    },
    {
      name: 'unwatch_page',
      route: 'monitors',
      title: 'Stop watching a page',
      description: 'Deletes a monitor and its history.',
      inputSchema: { ...id, type: 'object' },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      async run(args, backend) {
        return { content: [text(json((await api(backend, 'DELETE', route(args))).data))] };
      },
    },
  ];
}
