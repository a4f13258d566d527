// The routes of both endpoints: each path's route, matched in this order, with its methods and whether only the pro
// endpoint serves it, and the one shape every route's answer has. The router (respond.ts) looks a request's route up
// here and calls what startApp registered for it; the OpenAPI description (reference/openapi.ts) describes the routes
// in this order; the MCP tools (mcp/) each name the route they call, are listed by it, and are answered through
// `answerOf` as the router answers.
import type http from 'node:http';
import type { HandlerResponse } from './handler.ts';

/** What a route is asked: the request, and what the server read of it once. */
export interface Asked {
  /** The request: its method, URL and headers, and its body as read. */
  req: Pick<http.IncomingMessage, 'method' | 'url' | 'headers'> & AsyncIterable<unknown>;
  /** The path and query as sent. */
  url: string;
  /** The path alone. */
  path: string;
  /** The client's address (the proxies trusted taken off). */
  ip: string;
}

/** A route's answer for one endpoint. */
export type Answer = (asked: Asked) => Promise<HandlerResponse>;

export const ROUTES = [
  /** `GET /`: the API (server/handler.ts), the path every client request takes. */
  { name: 'api', methods: ['GET', 'HEAD'], proOnly: false, matches: (path: string) => path === '/' },
  /** `GET /map`: a site's URLs (server/map.ts). */
  { name: 'map', methods: ['GET', 'HEAD'], proOnly: false, matches: (path: string) => path === '/map' },
  /** Crawl jobs: `POST /crawls`, `GET /crawls/<id>[/results]`, `DELETE /crawls/<id>` (server/crawls.ts); EPRO on free. */
  {
    name: 'crawls',
    methods: ['GET', 'POST', 'DELETE'],
    proOnly: true,
    matches: (path: string) => path === '/crawls' || path.startsWith('/crawls/'),
  },
  /** Monitors: `POST /monitors`, `GET /monitors[/<id>[/changes]]`, `DELETE /monitors/<id>` (server/monitors.ts); EPRO on free. */
  {
    name: 'monitors',
    methods: ['GET', 'POST', 'DELETE'],
    proOnly: true,
    matches: (path: string) => path === '/monitors' || path.startsWith('/monitors/'),
  },
  /** The MCP tools over streamable HTTP (server/mcp/http.ts): it writes its answers on the connection itself. */
  { name: 'mcp', methods: ['POST'], proOnly: false, matches: (path: string) => path === '/mcp' },
  /** The server's own pages (health, metrics, docs, the playground, assets: server/own.ts); else the API's 404. */
  { name: 'own', methods: ['GET', 'HEAD'], proOnly: false, matches: (_path: string) => true },
] as const;

export type RouteName = (typeof ROUTES)[number]['name'];

/** Each route's answer for each endpoint ([free, pro]), as startApp registers them (MCP's apart: it writes its own). */
export type Registered = Partial<Record<Exclude<RouteName, 'mcp'>, readonly Answer[]>>;

/** The route of a path (the last one matches every path). */
export function routeOf(path: string): RouteName {
  return ROUTES.find((r) => r.matches(path))!.name;
}

/** Whether only the pro endpoint serves a route (the free one answers it EPRO). */
export function proOnly(route: RouteName): boolean {
  return ROUTES.find((r) => r.name === route)!.proOnly;
}

/**
 * The answer of a request on endpoint `i` (0 free, 1 pro) by its route, as registered; undefined while the route is
 * not registered yet (the engine starting) and for `/mcp`, which writes its answers itself.
 */
export function answerOf(routes: Registered, i: number, asked: Asked): Promise<HandlerResponse> | undefined {
  const route = routeOf(asked.path);
  return route === 'mcp' ? undefined : routes[route]?.[i]?.(asked);
}
