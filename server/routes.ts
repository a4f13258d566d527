// The routes of both endpoints: each path's route, matched in this order, and the one shape every route's answer has.
// The router (respond.ts) looks a request's route up here and calls what startApp registered for it; the OpenAPI
// description (reference/openapi.ts) describes the routes in this order.
import type http from 'node:http';
import type { HandlerResponse } from './handler.ts';

/** What a route is asked: the request, and what the server read of it once. */
export interface Asked {
  req: http.IncomingMessage;
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
  { name: 'api', matches: (path: string) => path === '/' },
  /** `GET /map`: a site's URLs (server/map.ts). */
  { name: 'map', matches: (path: string) => path === '/map' },
  /** Crawl jobs: `POST /crawls`, `GET /crawls/<id>[/results]`, `DELETE /crawls/<id>` (server/crawls.ts). */
  { name: 'crawls', matches: (path: string) => path === '/crawls' || path.startsWith('/crawls/') },
  /** Monitors: `POST /monitors`, `GET /monitors[/<id>[/changes]]`, `DELETE /monitors/<id>` (server/monitors.ts). */
  { name: 'monitors', matches: (path: string) => path === '/monitors' || path.startsWith('/monitors/') },
  /** The MCP tools over streamable HTTP (server/mcp/http.ts): it writes its answers on the connection itself. */
  { name: 'mcp', matches: (path: string) => path === '/mcp' },
  /** The server's own pages (health, metrics, docs, the playground, assets: server/own.ts); else the API's 404. */
  { name: 'own', matches: (_path: string) => true },
] as const;

export type RouteName = (typeof ROUTES)[number]['name'];

/** The route of a path (the last one matches every path). */
export function routeOf(path: string): RouteName {
  return ROUTES.find((r) => r.matches(path))!.name;
}
