// The service's own paths as OpenAPI describes them (openapi.ts adds them to the description).

/** `/mcp`: the MCP tools (a route of its own, server/routes.ts). */
export const MCP_PATH = {
  post: {
    operationId: 'mcp',
    summary: 'Model Context Protocol (streamable HTTP, stateless)',
    description:
      "The API as MCP tools for agents: extract, screenshot, pdf, markdown, text, html, metadata, palette, insights, map, crawl_start, crawl_status, crawl_results, crawl_cancel, and on the pro endpoint watch_page, list_monitors, page_changes, unwatch_page. Each POST is one JSON-RPC exchange, answered as JSON. On the pro endpoint the key comes as `x-api-key` or `Authorization: Bearer`; quotas and plans are those of the API's own paths. README, 'MCP'.",
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: {
      200: { description: 'the JSON-RPC answer', content: { 'application/json': { schema: { type: 'object' } } } },
      401: { description: 'EAUTH: the pro endpoint without a valid key' },
    },
  },
};

/** The service's own paths: this description and its pages, liveness, readiness, metrics, generated files. */
export const OWN_PATHS = {
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
