import http from 'node:http';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

const ROOT = path.resolve(import.meta.dirname, '../../fixtures');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
  '.js': 'text/javascript',
};

/** A loopback port that was free a moment ago (nothing listens on it now: connections to it are refused). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Answers with bytes, honouring a single `Range: bytes=a-b` (or `bytes=-n`) request as real servers do. */
export function sendBytes(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, type: string): void {
  const m = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
  if (!m || (m[1] === '' && m[2] === '')) {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, 'accept-ranges': 'bytes' });
    res.end(body);
    return;
  }
  const start = m[1] === '' ? Math.max(0, body.length - Number(m[2])) : Number(m[1]);
  const end = m[1] === '' || m[2] === '' ? body.length - 1 : Math.min(body.length - 1, Number(m[2]));
  const part = body.subarray(start, end + 1);
  res.writeHead(206, {
    'content-type': type,
    'content-length': part.length,
    'content-range': `bytes ${start}-${end}/${body.length}`,
    'accept-ranges': 'bytes',
  });
  res.end(part);
}

/** A route answering a file of `fixtures/` (ranges and all, as sendBytes does), under any path. */
export function fixtureFile(file: string, type = 'image/png'): Route {
  const body = readFileSync(path.join(ROOT, file));
  return (req, res) => sendBytes(req, res, body, type);
}

/** A route of a fixture server: answers a request, or returns undefined to fall through to files. */
/** A route answers the request, or returns `false` (or a promise of it) to leave it to the files. */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

/** A fixture server on 127.0.0.1 and an ephemeral port. */
export interface Fixture {
  url: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/**
 * Serves `fixtures/` (or custom routes) on loopback, or on `host` (containers reach the host at their network's
 * gateway; `url` then names that address); every request path is recorded in `hits`.
 */
export async function serveFixtures(
  routes: Record<string, Route> = {},
  fallback?: Route,
  host = '127.0.0.1',
  urlHost = host,
): Promise<Fixture> {
  const hits: string[] = [];
  const server = http.createServer(async (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    hits.push(req.url ?? '/');
    const route = routes[pathname];
    if (route && (await route(req, res)) !== false) return;
    if (fallback && (await fallback(req, res)) === true) return;
    const file = path.join(ROOT, path.normalize(pathname).replace(/^(\.\.[/\\])+/, ''));
    try {
      const body = await readFile(file);
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      sendBytes(req, res, body, type);
    } catch {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><head><title>Not found</title></head><body>missing</body></html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * An HTTP server on `host` (127.0.0.2 stands for a private host: loopback, but not on the tests' allowlist) that
 * also completes WebSocket handshakes, recording every request and upgrade it sees; `url` is `host:port`.
 */
export async function recordingServer(host: string): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`http ${req.url}`);
    res.end('reached');
  });
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req, socket) => {
    seen.push(`ws ${req.url}`);
    upgraded.add(socket);
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `${host}:${(server.address() as AddressInfo).port}`,
    seen,
    // Upgraded sockets are no longer the server's connections: they are ended here, or close() would wait on them.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of upgraded) s.destroy();
      }),
  };
}

/** Page script that opens a WebSocket to `host:port` and settles with 'open' or 'refused'. */
export const socketProbe = (url: string) =>
  `new Promise((done) => { const ws = new WebSocket('ws://${url}/live'); ws.onopen = () => { ws.close(); done('open'); }; ws.onerror = () => done('refused'); ws.onclose = () => done('refused'); })`;
