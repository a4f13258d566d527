// The service's public face: its OpenAPI description, a reference page rendered from it (swagger-ui, served from
// the package, nothing fetched from elsewhere) and the playground. Answered on both endpoints, outside quotas.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { HandlerResponse } from '../handler.ts';

/** The swagger-ui files the reference page loads (a fixed list: no path from a request reaches the disk). */
const SWAGGER_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
};

export interface Web {
  /** The answer for a path of the public face, or undefined when the path is not one of its own. */
  serve(pathname: string): Promise<HandlerResponse | undefined>;
}

/** `describe` makes the OpenAPI document (called once, on first use: the registry and addresses are known by then). */
export async function createWeb(describe: () => Record<string, unknown>): Promise<Web> {
  const [playground, docs] = await Promise.all([
    readFile(new URL('./web/playground.html', import.meta.url)),
    readFile(new URL('./web/docs.html', import.meta.url)),
  ]);
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Promise<Buffer>>();
  let openapi: string | undefined;
  return {
    async serve(pathname): Promise<HandlerResponse | undefined> {
      if (pathname === '/openapi.json') {
        openapi ??= JSON.stringify(describe(), null, 2);
        return {
          status: 200,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-cache',
            'access-control-allow-origin': '*',
          },
          body: openapi,
        };
      }
      if (pathname === '/playground' || pathname === '/playground/')
        return { status: 200, headers: PAGE_HEADERS, body: playground };
      if (pathname === '/docs' || pathname === '/docs/') return { status: 200, headers: PAGE_HEADERS, body: docs };
      const name = pathname.startsWith('/docs/swagger-ui/') ? pathname.slice('/docs/swagger-ui/'.length) : undefined;
      if (name !== undefined && Object.hasOwn(SWAGGER_FILES, name)) {
        if (!files.has(name)) files.set(name, readFile(path.join(swaggerDir, name)));
        return {
          status: 200,
          headers: { 'content-type': SWAGGER_FILES[name]!, 'cache-control': 'public, max-age=86400' },
          body: await files.get(name)!,
        };
      }
      return undefined;
    },
  };
}
