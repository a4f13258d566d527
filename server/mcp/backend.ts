// What the tools call: Refract's HTTP API, as a function. Over the network (a remote Refract, with its key), or, in
// the server's own /mcp, its handlers themselves (no socket: the caller's key, IP, quota and plan are the request's).
export interface Backend {
  /** `GET /?…`, `GET /map?…`, `POST /crawls`…: the API's answer. */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Response>;
  /** The bytes of a file an answer links (a screenshot). */
  file(url: string): Promise<{ contentType: string; body: Buffer }>;
  /** The OpenAPI description of this Refract: the tools' schemas come from it. */
  openApi(): Promise<OpenApiDocument>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown }>>;
}

/** A Refract over HTTP: `endpoint` (its pro endpoint when `key` is given, else its free one). */
export function httpBackend(endpoint: string, key?: string): Backend {
  const base = endpoint.replace(/\/+$/, '');
  const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
  let described: Promise<OpenApiDocument> | undefined;
  return {
    call: (method, path, body) =>
      fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    async file(url) {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      return { contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
    },
    openApi() {
      described ??= fetch(`${base}/openapi.json`).then(async (res) => {
        if (!res.ok) throw new Error(`${base}/openapi.json answered ${res.status}: is this a Refract endpoint?`);
        return (await res.json()) as OpenApiDocument;
      });
      return described;
    },
  };
}
