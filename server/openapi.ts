// The OpenAPI 3.1 description of the running service, made at start-up from the registry: every parameter comes
// from the zod schema that validates it (zod converts to JSON Schema), so a plugin's options, third-party ones
// included, are described exactly as they are checked.
import { z } from 'zod';
import { CRAWL_PATHS, ok } from './openapi-crawls.ts';
import { MONITOR_PATHS } from './openapi-monitors.ts';
import { mapParams } from '../crawl/index.ts';
import { CORE_DOCS, RESPONSE_HEADERS as HEADERS } from './parameter-docs.ts';
import {
  CODES,
  coreSchema,
  PRO_ONLY,
  TEST_HOOK_PARAMS,
  DURATION_MARK,
  TEXT_FORM_MARK,
  type Code,
  type Registry,
} from '../engine/index.ts';

type Schema = Record<string, unknown> & {
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  $ref?: string;
  type?: unknown;
  items?: Schema;
};

/** One query parameter as OpenAPI describes it, with Refract's own marks. */
export interface QueryParameter {
  name: string;
  in: 'query';
  required?: boolean;
  description: string;
  schema: Schema;
  allowEmptyValue?: boolean;
  explode?: boolean;
  'x-refract-pro'?: boolean;
  /** The default of an option described without a schema `default` (see defaultAsText). */
  'x-refract-default'?: unknown;
  'x-refract-plugin'?: string;
  'x-refract-needs-options'?: boolean;
}

/**
 * The JSON Schema of a validating schema: the value after coercion from query text (`io: output`), with the other
 * forms the coercion accepts (a duration as text, a proxy as one URL) and, for a value transformed after
 * validation (whose output JSON Schema cannot show), what is validated.
 */
export function jsonSchemaOf(schema: z.ZodType): Schema {
  const out = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override(ctx) {
      const node = ctx.jsonSchema as Schema;
      // zod's public `.def`, the schema's definition.
      const def = (ctx.zodSchema as unknown as { def: { type: string; in?: { def: { type: string } } } }).def;
      if (def.type === 'pipe' && Object.keys(node).length === 0 && def.in && def.in.def.type !== 'transform') {
        Object.assign(node, jsonSchemaOf(def.in as unknown as z.ZodType));
      }
      const textForm = node[TEXT_FORM_MARK];
      const isDuration = node[DURATION_MARK];
      delete node[TEXT_FORM_MARK];
      delete node[DURATION_MARK];
      const alternative = isDuration
        ? { type: 'string', description: 'a duration as text: 90s, 2m, 1h' }
        : typeof textForm === 'string'
          ? { type: 'string', description: textForm }
          : undefined;
      if (!alternative) return;
      const { default: initial, description, ...validated } = node;
      for (const key of Object.keys(node)) delete node[key];
      Object.assign(node, {
        ...(initial !== undefined ? { default: initial } : {}),
        ...(description ? { description } : {}),
        anyOf: [validated, alternative],
      });
    },
  }) as Schema;
  delete out.$schema;
  return out;
}

function isObjectNode(node: Schema): boolean {
  return node.type === 'object' && (node.properties !== undefined || typeof node.additionalProperties === 'object');
}

/**
 * The dotted query parameters one option stands for: an object becomes `name.key` parameters, a record
 * `name.{key}` ones; a value that may be plain or an object (`pdf.margin`) is both. `$ref`s are followed once.
 */
function flatten(
  name: string,
  node: Schema,
  defs: Record<string, Schema>,
  out: { name: string; schema: Schema }[],
  followed: ReadonlySet<string> = new Set(),
): void {
  let seen = followed;
  if (node.$ref) {
    const key = node.$ref.replace('#/$defs/', '');
    if (seen.has(key)) return;
    seen = new Set([...seen, key]);
    const { $ref: _ref, ...own } = node;
    node = { ...defs[key], ...own };
  }
  const alternatives = node.anyOf ?? [node];
  const objects = alternatives.filter(isObjectNode);
  // A list of objects (a list of fallback rules) is sent as numbered keys; it is described with its parent.
  const plain = alternatives.filter(
    (a) => !isObjectNode(a) && !(a.type === 'array' && a.items && (isObjectNode(a.items) || a.items.$ref)),
  );
  if (!objects.length) {
    out.push({ name, schema: node });
    return;
  }
  if (plain.length) {
    const { anyOf: _alternatives, ...rest } = node;
    out.push({ name, schema: plain.length === 1 ? { ...rest, ...plain[0] } : { ...rest, anyOf: plain } });
  }
  for (const object of objects) {
    for (const [key, value] of Object.entries(object.properties ?? {}))
      flatten(`${name}.${key}`, value, defs, out, seen);
    if (typeof object.additionalProperties === 'object')
      flatten(`${name}.{key}`, object.additionalProperties, defs, out, seen);
  }
}

function flattened(name: string, schema: Schema): { name: string; schema: Schema }[] {
  const out: { name: string; schema: Schema }[] = [];
  const defs = (schema.$defs ?? {}) as Record<string, Schema>;
  const { $defs: _defs, ...node } = schema;
  flatten(name, node, defs, out);
  return out;
}

function parameter(
  name: string,
  schema: Schema,
  description: string,
  extra: Partial<QueryParameter> = {},
): QueryParameter {
  // The description is the parameter's: its schema does not say it a second time.
  const { description: _said, ...plain } = schema;
  const param: QueryParameter = { name, in: 'query', description, schema: plain, ...extra };
  const types = [plain.type, ...(plain.anyOf ?? []).map((a) => a.type)];
  // A bare name is `true`: `?url=…&screenshot`.
  if (types.includes('boolean')) param.allowEmptyValue = true;
  if (types.includes('array')) param.explode = true;
  return param;
}

/**
 * An option that a request would not send without meaning more than its absence (an output's option turns the
 * output on; a pro-only option is refused on the free endpoint) carries its default as text and as
 * `x-refract-default`, not as the schema's `default`: clients generated from the description (and /docs'
 * "Try it out") send every `default`, and those must make together the same request as none.
 */
function defaultAsText(
  schema: Schema,
  description: string,
): { schema: Schema; description: string; extra: Partial<QueryParameter> } {
  if (schema.default === undefined) return { schema, description, extra: {} };
  const { default: initial, ...rest } = schema;
  const shown = typeof initial === 'string' ? initial : JSON.stringify(initial);
  return {
    schema: rest,
    description: `${description} Default: \`${shown}\`.`.trim(),
    extra: { 'x-refract-default': initial },
  };
}

/** Every query parameter the plan accepts, general ones first, then each plugin's in registry order. */
export function queryParameters(registry: Registry, opts: { testHooks?: boolean } = {}): QueryParameter[] {
  const params: QueryParameter[] = [];
  const core = jsonSchemaOf(coreSchema);
  for (const [key, schema] of Object.entries(core.properties ?? {})) {
    if (TEST_HOOK_PARAMS.has(key) && !opts.testHooks) continue;
    const pro = Object.hasOwn(PRO_ONLY, key);
    const doc = `${pro ? 'Pro only. ' : ''}${CORE_DOCS[key as keyof typeof CORE_DOCS] ?? ''}`;
    for (const p of flattened(key, schema)) {
      const own = p.name === key ? doc : typeof p.schema.description === 'string' ? p.schema.description : '';
      const described = pro ? defaultAsText(p.schema, own) : { schema: p.schema, description: own, extra: {} };
      params.push(
        parameter(p.name, described.schema, described.description, {
          ...(p.name === 'url' ? { required: true } : {}),
          ...(pro ? { 'x-refract-pro': true } : {}),
          ...described.extra,
        }),
      );
    }
  }
  // Options that plugins own at the top level of the query (`audio`, `video`: meta), as the contract names them.
  for (const plugin of registry.plugins) {
    for (const [name, schema] of Object.entries(plugin.topLevel ?? {})) {
      // Sent at its default it changes nothing (it does not turn the plugin on): the default stays a schema default.
      const { description, ...node } = jsonSchemaOf(schema);
      params.push(
        parameter(name, node, typeof description === 'string' ? description : '', {
          'x-refract-plugin': plugin.name,
        }),
      );
    }
  }
  for (const plugin of registry.plugins) {
    const options = jsonSchemaOf(plugin.params);
    // The bare parameter turns the output on or off; with a shorthand it also takes a plain word.
    const on: Schema = plugin.shorthand ? { anyOf: [{ type: 'boolean' }, { type: 'string' }] } : { type: 'boolean' };
    if (plugin.defaultOn) on.default = true;
    // An output that cannot run on defaults (`data` needs rules, `function` its code): bare `true` is refused.
    const needsOptions = !plugin.params.safeParse({}).success;
    // The option a plain word stands for (`screenshot=iPhone 15` is `screenshot.device=iPhone 15`).
    const shorthandFor = plugin.shorthand ? Object.keys(plugin.shorthand('x'))[0] : undefined;
    params.push(
      parameter(
        plugin.name,
        on,
        needsOptions
          ? `${plugin.description} Needs its options: \`${plugin.name}=false\` turns it off.`
          : plugin.description,
        {
          'x-refract-plugin': plugin.name,
          ...(needsOptions ? { 'x-refract-needs-options': true } : {}),
          ...(shorthandFor ? { 'x-refract-shorthand': `${plugin.name}.${shorthandFor}` } : {}),
        },
      ),
    );
    for (const p of flattened(plugin.name, options).filter((o) => o.name !== plugin.name)) {
      // Without a description of its own, an option says its default alone (not "`screenshot` option." on each).
      // A plugin from outside that describes no option still says whose it is.
      const own =
        typeof p.schema.description === 'string' ? p.schema.description : `An option of the \`${plugin.name}\` plugin.`;
      const described = defaultAsText(p.schema, own);
      params.push(
        parameter(p.name, described.schema, described.description, {
          'x-refract-plugin': plugin.name,
          ...described.extra,
        }),
      );
    }
  }
  return params;
}

const media: Schema = {
  type: 'object',
  description: 'A file: an image, video or audio of the page, or a generated screenshot or PDF.',
  properties: {
    url: { type: 'string', format: 'uri' },
    type: { type: 'string' },
    size: { type: 'integer' },
    size_pretty: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    duration: { type: 'number' },
    duration_pretty: { type: 'string' },
    pages: { type: 'integer', description: "A PDF's number of pages." },
    palette: { type: 'array', items: { type: 'string' } },
    background_color: { type: 'string' },
    color: { type: 'string' },
    alternative_color: { type: 'string' },
  },
  required: ['url'],
};

const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
const text = { type: 'string' };

const data: Schema = {
  type: 'object',
  description:
    'The payload. Each output asked for adds its key (`screenshot`, `pdf`, `palette` fields, `insights`, `iframe`, `function`, data rules, plugins).',
  additionalProperties: true,
  properties: {
    title: nullable(text),
    description: nullable(text),
    author: nullable(text),
    publisher: nullable(text),
    date: nullable({ type: 'string', format: 'date-time' }),
    lang: nullable(text),
    url: { type: 'string', format: 'uri' },
    image: nullable({ $ref: '#/components/schemas/Media' }),
    logo: nullable({ $ref: '#/components/schemas/Media' }),
    video: nullable({ $ref: '#/components/schemas/Media' }),
    audio: nullable({ $ref: '#/components/schemas/Media' }),
    pageType: nullable({
      type: 'string',
      enum: ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'],
      description:
        'With `markdown`, `text` or `html`: the kind of page the content was read from, from its own signals (declared schema.org types, forum and documentation markup, Open Graph type, URL shape, repeated cards); null when none says. An article or documentation is read as one container; a forum thread as all its posts; a product, collection, listing or service page as its body without the site around it. docs/content.md.',
    }),
    screenshot: { $ref: '#/components/schemas/Media' },
    pdf: { $ref: '#/components/schemas/Media' },
    statusCode: { type: 'integer' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    redirects: {
      type: 'array',
      items: {
        type: 'object',
        properties: { statusCode: { type: 'integer' }, url: { type: 'string', format: 'uri' } },
      },
    },
  },
};

/** The codes answered with each HTTP status. */
function codesByStatus(): Map<number, Code[]> {
  const by = new Map<number, Code[]>();
  for (const [code, status] of Object.entries(CODES) as [Code, number][])
    by.set(status, [...(by.get(status) ?? []), code]);
  return by;
}

/** The service's own paths: this description and its pages, liveness, readiness, metrics, generated files. */
const OWN_PATHS = {
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'Model Context Protocol (streamable HTTP, stateless)',
      description:
        "The API as MCP tools for agents: extract, screenshot, pdf, markdown, text, html, metadata, palette, insights, map, crawl_start, crawl_status, crawl_results, crawl_cancel. Each POST is one JSON-RPC exchange, answered as JSON. On the pro endpoint the key comes as `x-api-key` or `Authorization: Bearer`; quotas and plans are those of the API's own paths. README, 'MCP'.",
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        200: { description: 'the JSON-RPC answer', content: { 'application/json': { schema: { type: 'object' } } } },
        401: { description: 'EAUTH: the pro endpoint without a valid key' },
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This description',
      responses: {
        200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
  '/healthz': {
    get: {
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      responses: {
        200: {
          description: 'alive',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } },
        },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      summary: 'Readiness: started, not draining, browser and Redis usable',
      responses: {
        200: {
          description: 'ready',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } },
        },
        503: {
          description: 'not ready (starting, draining, or a dependency down)',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics: on the pro port, or on both with `Authorization: Bearer <REFRACT_METRICS_TOKEN>`',
      responses: {
        200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
        401: { description: 'EAUTH: the token is missing or wrong' },
        404: { description: 'ENOTFOUND: on the free port without a token set' },
      },
    },
  },
  '/playground': {
    get: {
      operationId: 'playground',
      summary: 'The playground: every option of the loaded plugins in a form, the answer previewed',
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      summary: 'This reference, rendered',
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/docs/errors': {
    get: {
      operationId: 'errors',
      summary: 'Every error code with its HTTP status and how to solve it (Markdown at /docs/errors.md)',
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/assets/{name}': {
    get: {
      operationId: 'asset',
      summary: 'A generated file (screenshot, PDF, clip)',
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: {
          description: 'the file',
          content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        404: {
          description: 'ENOTFOUND',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
        },
      },
    },
  },
};

/** The schemas the operations refer to. */
const SCHEMAS = {
  Media: media,
  Data: data,
  Success: {
    type: 'object',
    required: ['status', 'data'],
    properties: {
      status: { const: 'success' },
      data: { $ref: '#/components/schemas/Data' },
      message: { type: 'string' },
    },
  },
  Failure: {
    type: 'object',
    required: ['status', 'code', 'message'],
    properties: {
      status: { enum: ['fail', 'error'] },
      code: { enum: Object.keys(CODES) },
      message: { type: 'string' },
      more: { type: 'string', format: 'uri' },
      report: { type: 'string', format: 'uri' },
      id: { type: 'string' },
      data: { anyOf: [{ type: 'object' }, { type: 'null' }] },
    },
  },
};

/** `GET /map`: its parameters from the schema that checks them (crawl/map.ts). */
function mapPath(failureResponses: Record<string, unknown>) {
  const parameters = Object.entries(mapParams.shape).map(([name, schema]) => {
    const { description, ...json } = jsonSchemaOf(schema as z.ZodType);
    return { name, in: 'query', required: name === 'url', description, schema: json };
  });
  return {
    '/map': {
      get: {
        operationId: 'map',
        summary: "A site's URLs, without rendering",
        description:
          "The sitemaps robots.txt names (or /sitemap.xml), nested and gzipped ones too, and the start page's links: same site by default, canonical and de-duplicated, each host through the SSRF guard. One request of the quota.",
        parameters,
        security: [{}, { apiKey: [] }],
        responses: {
          200: ok('the URLs', {
            type: 'object',
            properties: { url: { type: 'string' }, urls: { type: 'array', items: { type: 'string' } } },
          }),
          ...failureResponses,
        },
      },
    },
  };
}

/** The whole description: the API operation on both endpoints, the service's own paths, schemas and security. */
export function openApiDocument(
  registry: Registry,
  opts: { version: string; freeUrl: string; proUrl: string; docsUrl: string; testHooks?: boolean },
): Record<string, unknown> {
  const failureResponses = Object.fromEntries(
    [...codesByStatus()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: `${status >= 500 ? 'error' : 'fail'}: ${codes.join(', ')}`,
          content: {
            'application/json': {
              schema: { allOf: [{ $ref: '#/components/schemas/Failure' }, { properties: { code: { enum: codes } } }] },
            },
          },
        },
      ]),
  );
  const responseHeaders = Object.fromEntries(
    Object.entries(HEADERS).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Refract API',
      version: opts.version,
      summary:
        'Any public URL as structured data: metadata, screenshots, PDFs, palettes, extraction, embeds, insights.',
      description: `Wire-compatible with the Microlink API. Parameter names are accepted in camelCase or snake_case, nested options as dotted names (\`screenshot.fullPage\`), lists as repeated or numbered keys (\`waitUntil.0=load\`), and a bare name means \`true\`. Names with \`{key}\` stand for any name (\`data.price.selector\`).\n\n[Error codes](${opts.docsUrl}), each with how to solve it · [Playground](/playground), every option in a form · [openapi.json](/openapi.json) · metrics at \`/metrics\` on the pro port.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: opts.freeUrl, description: 'free endpoint: no key, requests counted per IP' },
      { url: opts.proUrl, description: 'pro endpoint: every request carries x-api-key' },
    ],
    paths: {
      '/': {
        get: {
          operationId: 'extract',
          summary: 'Turn a URL into data',
          description: 'One request, any combination of outputs. JSend answers; `embed` answers one field raw.',
          parameters: queryParameters(registry, { testHooks: opts.testHooks }),
          security: [{}, { apiKey: [] }, { signedLink: [] }],
          responses: {
            200: {
              description: 'success (or the raw field with `embed`)',
              headers: responseHeaders,
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Success' } },
                'text/plain': { schema: { type: 'string' } },
                'text/markdown': { schema: { type: 'string' } },
                'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } },
                'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
                'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } },
              },
            },
            304: { description: 'not modified (`If-None-Match` matched the `etag`)' },
            ...failureResponses,
          },
        },
      },
      ...mapPath(failureResponses),
      ...CRAWL_PATHS,
      ...MONITOR_PATHS,
      ...OWN_PATHS,
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'Required on the pro endpoint; sending it to the free endpoint is EPRO.',
        },
        signedLink: {
          type: 'apiKey',
          in: 'query',
          name: 'signature',
          description:
            "A signed link, on either endpoint and with no header: `expires` (Unix seconds) and `signature`, base64url HMAC-SHA256 of the query's other parameters (sorted by name, then value, form-encoded) under the key's signing secret, derived from REFRACT_SIGNING_SECRET (`refract-api sign`, `signUrl()`). Charged to that key; a changed query, an expired link or a revoked key is 401 EAUTH.",
        },
      },
      schemas: SCHEMAS,
    },
  };
}
