// What every MCP tool is made of: the tool's shape, a call of Refract's HTTP API (backend.ts) whose failure is an
// ApiFailure with the API's code and message, answers as MCP content, and long text in pages (`maxLength`, `cursor`).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RouteName } from '../routes.ts';
import type { Backend } from './backend.ts';

export type Schema = Record<string, unknown>;
type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };
export type ToolResult = CallToolResult & { content: Content[] };
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; openWorldHint: true };
  /** The route it calls (server/routes.ts): an endpoint lists the tools of the routes it serves. */
  route: RouteName;
  run(args: Record<string, unknown>, backend: Backend): Promise<ToolResult>;
}

/** An API failure: its code and message, as the tool error says them. */
export class ApiFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** The API's answer: its JSend `data`, or the raw body of an `embed`; a failure throws ApiFailure. */
export async function api(
  backend: Backend,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ data?: Record<string, unknown>; raw?: string; warnings?: unknown[] }> {
  const res = await backend.call(method, path, body);
  // Parameters the API does not know are named in a header: an agent is told them, as a warning.
  const unknown = res.headers.get('x-refract-unknown-params');
  const ignored = unknown
    ? [{ message: `Not parameters of this API, ignored: ${unknown.split(/,\s*/).map(decoded).join(', ')}` }]
    : [];
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('json')) {
    if (res.ok) return { raw: await res.text() };
    throw new ApiFailure(`HTTP${res.status}`, (await res.text()).slice(0, 500));
  }
  const json = (await res.json()) as Record<string, unknown>;
  if (json.status !== 'success')
    throw new ApiFailure(String(json.code ?? `HTTP${res.status}`), String(json.message ?? ''));
  const warnings = [...((json.warnings as unknown[] | undefined) ?? []), ...ignored];
  return { data: json.data as Record<string, unknown>, warnings: warnings.length ? warnings : undefined };
}

export const text = (value: string): Content => ({ type: 'text', text: value });
export const json = (value: unknown): string => JSON.stringify(value, null, 1);

/** A percent-encoded name, decoded (as it was sent when it does not decode). */
function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The characters a text answer holds at most unless `maxLength` says otherwise. */
export const DEFAULT_MAX_LENGTH = 20_000;
export const PAGING: Record<string, Schema> = {
  maxLength: {
    type: 'integer',
    minimum: 100,
    maximum: 1_000_000,
    default: DEFAULT_MAX_LENGTH,
    description: 'Characters of the answer at most; the rest is read with `cursor`.',
  },
  cursor: { type: 'string', description: 'Where to go on reading: the `cursor` the previous page named.' },
};

/** One page of a long text, and how to read the next. */
export function paged(whole: string, args: Record<string, unknown>): ToolResult {
  const max = typeof args.maxLength === 'number' ? Math.max(100, Math.floor(args.maxLength)) : DEFAULT_MAX_LENGTH;
  const from = args.cursor === undefined ? 0 : Number(args.cursor);
  if (!Number.isInteger(from) || from < 0 || from > whole.length)
    throw new ApiFailure(
      'EINVALQUERY',
      `Invalid \`cursor\`: expected one a previous page named (0 to ${whole.length})`,
    );
  const to = Math.min(whole.length, from + max);
  const content = [text(whole.slice(from, to))];
  if (to < whole.length)
    content.push(
      text(`[characters ${from} to ${to} of ${whole.length}; the next page: call again with cursor "${to}"]`),
    );
  return { content };
}

export const URL_ARG: Schema = { type: 'string', description: 'The page (or file) to read: any public http(s) URL.' };

export const readOnly = { readOnlyHint: true, openWorldHint: true } as const;

/** A tool's failure as the tool error MCP clients show: the API's code and message. */
export function toolError(err: unknown): ToolResult {
  const code = err instanceof ApiFailure ? err.code : 'EFATAL';
  return { content: [text(`${code}: ${(err as Error).message}`)], isError: true };
}
