// The MCP tools: each a call of Refract's HTTP API (backend.ts), with its input schema from that API's OpenAPI
// description (schemas.ts). Answers are sized for a model's context: long text comes in pages (`maxLength`,
// `cursor`), a screenshot as an image resized to what a model reads, plus its link. A failure is a tool error
// carrying the API's code and message.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { queryParams } from '../../engine/index.ts';
import sharp from '../../plugins/shared/sharp.ts';
import type { Backend, OpenApiDocument } from './backend.ts';
import { objectOf, paramTree, subtree, type OpenApiParameter } from './schemas.ts';

type Schema = Record<string, unknown>;
type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };
export type ToolResult = CallToolResult & { content: Content[] };
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  annotations: { readOnlyHint: boolean; openWorldHint: true };
  /** Only the pro endpoint serves it (crawl jobs): the free endpoint does not list it. */
  pro?: boolean;
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
async function api(
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

const text = (value: string): Content => ({ type: 'text', text: value });
const json = (value: unknown): string => JSON.stringify(value, null, 1);

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
const PAGING: Record<string, Schema> = {
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
function paged(whole: string, args: Record<string, unknown>): ToolResult {
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

const URL_ARG: Schema = { type: 'string', description: 'The page (or file) to read: any public http(s) URL.' };

/** Drops the tool's own arguments and merges `options` (the API's general parameters) into the query. */
function queryOf(args: Record<string, unknown>, own: Record<string, unknown>): string {
  const { options, maxLength: _m, cursor: _c, url, ...rest } = args;
  return queryParams({ url, ...(options as Record<string, unknown> | undefined), ...own, ...rest }).toString();
}

const readOnly = { readOnlyHint: true, openWorldHint: true } as const;

/** The query of a one-output tool: its URL, the general `options`, no metadata, and the output with its own options. */
function outputQuery(
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  bare: unknown = true,
): string {
  const { url, options, maxLength: _m, cursor: _c, ...own } = args;
  return queryParams({
    url,
    ...(options as object),
    meta: false,
    ...extra,
    [name]: Object.keys(own).length ? own : bare,
  }).toString();
}

/** A one-output tool's output that did not come is the tool's error, with the API's warning: never the text `null`. */
function outputOf(name: string, data: Record<string, unknown> | undefined, warnings: unknown[] | undefined) {
  if (data?.[name] !== null) return data ?? {};
  const said = (warnings as { plugin?: string; code?: string; message?: string }[] | undefined)?.find(
    (w) => w.plugin === name,
  );
  throw new ApiFailure(said?.code ?? 'EPLUGIN', said?.message ?? `The ${name} output did not come`);
}

/** A schema without its descriptions, at every depth (its names, types, enums and bounds stay). */
function unsaid(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description') continue;
    if (key === 'properties' && value && typeof value === 'object')
      out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, unsaid(v)]));
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map((v) => unsaid(v));
    else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object')
      out[key] = unsaid(value as Schema);
    else out[key] = value;
  }
  return out;
}

/** The tools of a Refract described by `doc`. */
export function buildTools(doc: OpenApiDocument): Tool[] {
  const params = (doc.paths['/']?.get?.parameters ?? []) as OpenApiParameter[];
  const tree = paramTree(params);
  const general = objectOf(paramTree(params.filter((p) => !p['x-refract-plugin'] && p.name !== 'url')));
  // Said once: `extract` describes every general parameter; the one-output tools name them and their types only
  // (an agent reads the tool list on every call, and eight copies of the same texts were most of it).
  const optionsArg: Schema = {
    ...unsaid(general),
    description: 'General API parameters, as `extract` describes them (waitUntil, device, headers, timeout, force...).',
  };
  /** A tool over one output: the URL, that output's options at the top, the general ones under `options`. */
  const outputTool = (
    name: string,
    title: string,
    description: string,
    answer: (data: Record<string, unknown>, args: Record<string, unknown>, backend: Backend) => Promise<ToolResult>,
    extra: Record<string, Schema> = {},
    query: Record<string, unknown> = {},
    bare: unknown = true,
  ): Tool => ({
    name,
    title,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        url: URL_ARG,
        ...(objectOf(subtree(tree, name)).properties as object),
        ...extra,
        options: optionsArg,
      },
      required: ['url'],
    },
    annotations: readOnly,
    async run(args, backend) {
      const { data, warnings } = await api(backend, 'GET', `/?${outputQuery(name, args, query, bare)}`);
      return answer(outputOf(name, data, warnings), args, backend);
    },
  });
  const textTool = (name: 'markdown' | 'text' | 'html', what: string): Tool => ({
    ...outputTool(name, `Page as ${what}`, '', async () => ({ content: [] }), PAGING),
    description: `The page's main content as ${what}, in pages of \`maxLength\` characters (\`cursor\` reads on).`,
    async run(args, backend) {
      const search = outputQuery(name, args, { embed: name });
      const { raw, data } = await api(backend, 'GET', `/?${search}`);
      return paged(raw ?? String(data?.[name] ?? ''), args);
    },
  });
  const mapParams = (doc.paths['/map']?.get?.parameters ?? []) as OpenApiParameter[];
  const crawlBody = (doc.paths['/crawls']?.post?.requestBody as { content?: Record<string, { schema?: Schema }> })
    ?.content?.['application/json']?.schema ?? { type: 'object' };
  const jobId: Schema = {
    type: 'object',
    properties: { id: { type: 'string', description: 'The crawl job id.' } },
    required: ['id'],
  };
  const tools: Tool[] = [
    {
      name: 'extract',
      title: 'Refract API',
      description:
        'The whole Refract (Microlink-compatible) API on one URL: metadata by default; name outputs with their options (screenshot, pdf, palette, data rules, markdown, text, html, insights, iframe, function...). Answers the JSON data, in pages of `maxLength` characters.',
      inputSchema: {
        ...objectOf(tree),
        type: 'object',
        required: ['url'],
        properties: { ...(objectOf(tree).properties as object), ...PAGING },
      },
      annotations: readOnly,
      async run(args, backend) {
        const { data, warnings } = await api(backend, 'GET', `/?${queryOf(args, {})}`);
        return paged(json(warnings?.length ? { ...data, warnings } : data), args);
      },
    },
    outputTool(
      'screenshot',
      'Screenshot',
      'A screenshot of the rendered page (viewport, full page or an element), shown as an image sized for a model, with the link of the full capture.',
      screenshotAnswer,
    ),
    outputTool('pdf', 'PDF', 'The rendered page as a PDF: its link, size and pages.', async (data) => ({
      content: [text(json(data.pdf))],
    })),
    textTool('markdown', 'Markdown'),
    textTool('text', 'plain text'),
    textTool('html', 'clean HTML'),
    {
      ...metadataBase(
        outputTool('meta', 'Metadata', '', async () => ({ content: [] })),
        tree,
      ),
      name: 'metadata',
      description:
        'Normalized metadata: title, description, author, date, publisher, lang, image, logo, url (and video, audio when asked); `title: true` and the like select fields.',
      async run(args, backend) {
        const { url, options, video, audio, ...fields } = args;
        const search = queryParams({
          url,
          ...(options as object),
          video,
          audio,
          meta: Object.keys(fields).length ? fields : true,
        });
        return { content: [text(json((await api(backend, 'GET', `/?${search}`)).data))] };
      },
    },
    {
      name: 'palette',
      title: 'Colour palette',
      description:
        "The dominant colours of the page's image and logo (and of its screenshot with `screenshot: true`), with a background, text and alternative colour chosen for contrast.",
      inputSchema: {
        type: 'object',
        properties: {
          url: URL_ARG,
          screenshot: { type: 'boolean', default: false, description: "The page's screenshot too." },
          options: optionsArg,
        },
        required: ['url'],
      },
      annotations: readOnly,
      async run(args, backend) {
        const search = queryParams({
          url: args.url,
          ...(args.options as object),
          palette: true,
          meta: { image: true, logo: true },
          screenshot: args.screenshot === true,
        });
        const { data = {} } = await api(backend, 'GET', `/?${search}`);
        const out: Record<string, unknown> = {};
        for (const field of ['image', 'logo', 'screenshot']) {
          const media = data[field] as Record<string, unknown> | null | undefined;
          if (media?.palette)
            out[field] = {
              url: media.url,
              palette: media.palette,
              background_color: media.background_color,
              color: media.color,
              alternative_color: media.alternative_color,
            };
        }
        return { content: [text(json(out))] };
      },
    },
    outputTool(
      'insights',
      'Insights',
      'The technologies the site uses and, asked for by `lighthouse`, its Lighthouse report (in pages of `maxLength` characters).',
      async (data, args) => paged(json(data.insights), args),
      PAGING,
      {},
      // Lighthouse only when asked for by name: an audit takes seconds to tens of seconds.
      { technologies: true },
    ),
    {
      name: 'map',
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
      pro: true,
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
      pro: true,
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
      pro: true,
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
      pro: true,
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
  return tools;
}

/** The metadata tool's arguments: meta's field flags, and the top-level `video` and `audio`. */
function metadataBase(tool: Tool, tree: ReturnType<typeof paramTree>): Tool {
  const topLevel = objectOf(tree).properties as Record<string, Schema>;
  const properties = { ...(tool.inputSchema.properties as object) } as Record<string, Schema>;
  for (const name of ['video', 'audio']) if (topLevel[name]) properties[name] = topLevel[name];
  return { ...tool, inputSchema: { ...tool.inputSchema, properties } };
}

/** The longest side and the pixels of an image a model reads whole (larger ones it scales down itself). */
const MODEL_SIDE = 1568;
const MODEL_PIXELS = 1_150_000;

/** A screenshot as an image a model reads (JPEG, scaled to fit), and its facts with the link of the full capture. */
async function screenshotAnswer(data: Record<string, unknown>, _args: unknown, backend: Backend): Promise<ToolResult> {
  const shot = data.screenshot as { url: string; type?: string; width?: number; height?: number } | undefined;
  if (!shot?.url) throw new ApiFailure('EFATAL', 'The answer held no screenshot');
  if (shot.type === 'mp4') return { content: [text(json(shot))] };
  const { body } = await backend.file(shot.url);
  const image = sharp(body);
  const { width = 1, height = 1 } = await image.metadata();
  const scale = Math.min(1, MODEL_SIDE / width, MODEL_SIDE / height, Math.sqrt(MODEL_PIXELS / (width * height)));
  const shown = { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
  const jpeg = await image.resize(shown).flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer();
  return {
    content: [
      { type: 'image', data: jpeg.toString('base64'), mimeType: 'image/jpeg' },
      text(json({ ...shot, shown: { ...shown, type: 'jpeg' } })),
    ],
  };
}

/** A tool's failure as the tool error MCP clients show: the API's code and message. */
export function toolError(err: unknown): ToolResult {
  const code = err instanceof ApiFailure ? err.code : 'EFATAL';
  return { content: [text(`${code}: ${(err as Error).message}`)], isError: true };
}
