// The OpenAPI 3.1 description of the running service, made at start-up: `GET /` with its query parameters
// (openapi-params.ts), the crawl jobs' and monitors' paths, the service's own paths, the schemas and security.
import type { z } from 'zod';
import { CRAWL_PATHS, ok } from './openapi-crawls.ts';
import { MONITOR_PATHS } from './openapi-monitors.ts';
import { mapParams } from '../../crawl/index.ts';
import { RESPONSE_HEADERS as HEADERS } from './parameter-docs.ts';
import { CODES, type Code, type Registry } from '../../engine/index.ts';
import { jsonSchemaOf, queryParameters, type Schema } from './openapi-params.ts';
import { MCP_PATH, OWN_PATHS } from './openapi-own.ts';
import { ROUTES, type RouteName } from '../routes.ts';

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

/** The paths a route answers, as described (its key in `paths`). */
function pathsOf(
  route: RouteName,
  own: { '/': unknown; mcp: unknown },
  failureResponses: Record<string, unknown>,
): Record<string, unknown> {
  switch (route) {
    case 'api':
      return { '/': own['/'] };
    case 'mcp':
      return { '/mcp': own.mcp };
    case 'map':
      return mapPath(failureResponses);
    case 'crawls':
      return CRAWL_PATHS;
    case 'monitors':
      return MONITOR_PATHS;
    case 'own':
      return OWN_PATHS;
  }
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
  const API_PATH = {
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
  };
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
    // Each route's paths, in the route table's order (server/routes.ts): what is described is what the router answers.
    paths: Object.assign(
      {},
      ...ROUTES.map((route) => pathsOf(route.name, { '/': API_PATH, mcp: MCP_PATH }, failureResponses)),
    ),
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
