// The endpoints' connections: what a connection may hold (header deadline, keep-alive, connections per client), the
// JSend answer to a request that cannot be parsed, and listening on an address.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { RefractError, type Config } from '../engine/index.ts';
import { failure } from './jsend.ts';

/**
 * What a connection may hold: its headers must arrive within `headersTimeoutMs` (then 408 and closed; checked every
 * second, not Node's 30 s), an idle keep-alive connection closes after `keepAliveTimeoutMs` (longer than the usual
 * 60 s of load balancers, so that they close first), and one client address holds at most
 * `maxConnectionsPerClient` connections at once: half-open sockets cannot pile up.
 */
export function bound(
  server: http.Server,
  config: Pick<Config, 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnectionsPerClient'>,
): void {
  server.headersTimeout = config.headersTimeoutMs;
  // The whole request (headers and body) within the same bound plus time for a body.
  server.requestTimeout = config.headersTimeoutMs + 30_000;
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const cap = config.maxConnectionsPerClient;
  if (cap <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: import('node:net').Socket) => {
    const peer = socket.remoteAddress ?? '';
    const n = (open.get(peer) ?? 0) + 1;
    if (n > cap) {
      socket.destroy();
      return;
    }
    open.set(peer, n);
    socket.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left > 0) open.set(peer, left);
      else open.delete(peer);
    });
  });
}

/** The longest request line plus headers served (documented with ETOOLARGE). */
export const MAX_HEAD_BYTES = 64 * 1024;

/** Sockets whose unparseable request was answered already. */
const answered = new WeakSet<object>();

/**
 * A request that cannot be parsed (a head over the limit, malformed HTTP) still gets a JSend answer with a code.
 * The socket is read to its end meanwhile: closing it while the client still sends would reset the connection
 * before the client reads the answer.
 */
export function answerClientError(
  err: NodeJS.ErrnoException,
  socket: import('node:stream').Duplex,
  docsUrl: string,
): void {
  // Every later chunk of an unparseable request fails again: the first failure was answered, the rest is read away.
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A client too slow to send its headers (REFRACT_HEADERS_TIMEOUT) is told so and let go at once.
  const late = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const refused =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new RefractError('ETOOLARGE', `The request line and headers exceed ${MAX_HEAD_BYTES / 1024} KB`)
      : late
        ? new RefractError('ETIMEOUT', 'The request headers did not arrive in time')
        : new RefractError('EINVALQUERY', 'The request is not valid HTTP');
  const { status, body } = failure(refused, randomUUID(), docsUrl);
  const text = JSON.stringify(body);
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  setTimeout(() => socket.destroy(), late ? 0 : 5000).unref();
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** An address as `host:port` (IPv6 in brackets). */
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Listens on `host`; resolves with the address actually bound and a URL this machine reaches it at (a wildcard
 * address is reached on loopback).
 */
export function listen(server: http.Server, port: number, host: string): Promise<{ bound: string; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo;
      const reach = addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address === '::' ? '::1' : addr.address;
      resolve({ bound: hostPort(addr.address, addr.port), url: `http://${hostPort(reach, addr.port)}` });
    });
  });
}
