// The MCP tools: each a call of Refract's HTTP API (backend.ts), with its input schema from that API's OpenAPI
// description (schemas.ts). Answers are sized for a model's context: long text comes in pages (`maxLength`,
// `cursor`), a screenshot as an image resized to what a model reads, plus its link. A failure is a tool error
// carrying the API's code and message.
import sharp from 'sharp';
import { queryParams } from '../../engine/index.ts';
import type { Backend, OpenApiDocument } from './backend.ts';
import { objectOf, paramTree, subtree, type OpenApiParameter } from './schemas.ts';
import { siteTools } from './site-tools.ts';
import { monitorTools } from './monitor-tools.ts';
import {
  ApiFailure,
  api,
  json,
  PAGING,
  paged,
  readOnly,
  type Schema,
  text,
  type Tool,
  type ToolResult,
  URL_ARG,
} from './tool-kit.ts';

export { ApiFailure, type Tool, toolError } from './tool-kit.ts';

/** Drops the tool's own arguments and merges `options` (the API's general parameters) into the query. */
function queryOf(args: Record<string, unknown>, own: Record<string, unknown>): string {
  const { options, maxLength: _m, cursor: _c, url, ...rest } = args;
  return queryParams({ url, ...(options as Record<string, unknown> | undefined), ...own, ...rest }).toString();
}

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
    route: 'api',
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
  const tools: Tool[] = [
    {
      name: 'extract',
      route: 'api',
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
      route: 'api',
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
    ...siteTools(doc),
    ...monitorTools(doc),
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
