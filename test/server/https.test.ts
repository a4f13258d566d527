// Targets over https: one TLS connection per fetch, with a desktop Chrome's headers for HTTP/1.1 (the version
// Refract speaks), the same for every request of a session; and no connection at all, of any kind, to an https
// host the SSRF guard refuses. (got-scraping, left to make the headers, opened a TLS connection of its own to every
// new https host to learn whether it spoke HTTP/2, through the system's resolver, before the guarded request.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import tls from 'node:tls';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';
import { browserHeaders, requestHeaders } from '../../engine/fetch/browser-headers.ts';

const TLS = path.resolve(import.meta.dirname, '../../fixtures/tls');
const cert = readFileSync(path.join(TLS, 'localhost-cert.pem'), 'utf8');

let server: https.Server;
let port: number;
/** TCP connections the https fixture accepted, the protocols each client offered (ALPN), and the requests it answered. */
let connections = 0;
const offers: string[][] = [];
const requests: { url: string; headers: import('node:http').IncomingHttpHeaders }[] = [];
let app: Handlers;
let closed: Handlers;

test.before(async () => {
  // The fixture's certificate is trusted in this process only (the server under test runs here).
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  const ALPNCallback = ({ protocols }: { protocols: string[] }) => {
    offers.push(protocols);
    return protocols.includes('http/1.1') ? 'http/1.1' : protocols[0];
  };
  server = https.createServer(
    { key: readFileSync(path.join(TLS, 'localhost-key.pem')), cert, ALPNCallback },
    (req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html lang="en"><head><title>Over TLS</title><meta name="description" content="A page served over https."></head><body><p>Hello.</p></body></html>',
      );
    },
  );
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  app = await startHandlers();
  // No private host allowed at all: `localhost` is refused like any name that resolves to a private address.
  closed = await startHandlers({ REFRACT_ALLOW_PRIVATE_HOSTS: '' });
});

test.after(async () => {
  await app.close();
  await closed.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test("an https target is read over one TLS connection per fetch, with a desktop Chrome's headers", async () => {
  connections = 0;
  offers.length = 0;
  requests.length = 0;
  for (const [i, prerender] of ['false', 'auto'].entries()) {
    const res = await call(app.free, `url=${q(`https://127.0.0.1:${port}/page?n=${i}`)}&prerender=${prerender}&force`);
    assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.is(res.body.data.title, 'Over TLS');
    assert.is(res.body.data.description, 'A page served over https.');
  }
  const pages = requests.filter((r) => r.url.startsWith('/page'));
  assert.is(pages.length, 2);
  // Nobody asked whether the host speaks HTTP/2 (got-scraping's probe offered h2 on a connection of its own), and
  // every connection carried a request (the page's, or the favicon's the metadata looks for).
  assert.equal(
    offers.filter((p) => p.includes('h2')),
    [],
  );
  assert.ok(
    connections >= 2 && connections <= requests.length,
    `${connections} connections for ${requests.map((r) => r.url)}`,
  );
  for (const { headers } of pages) {
    assert.match(String(headers['user-agent']), /Chrome\/\d+/);
    assert.match(String(headers['sec-ch-ua']), /Chrom/);
    assert.ok(headers['accept-language'] && headers.accept?.startsWith('text/html'), JSON.stringify(headers));
  }
});

test('an https host the guard refuses is never connected to, not even to learn its protocol', async () => {
  connections = 0;
  offers.length = 0;
  requests.length = 0;
  for (const query of ['prerender=false', 'prerender=auto', 'meta=false&data.t.selector=title']) {
    const res = await call(closed.free, `url=${q(`https://localhost:${port}/secret`)}&${query}&force`);
    assert.is(res.status, 403, `${query}: ${JSON.stringify(res.body).slice(0, 300)}`);
    assert.is(res.body.code, 'EFORBIDDENURL', query);
  }
  assert.is(connections, 0);
  assert.equal(requests, []);
  assert.equal(offers, []);
});

test("a session presents the same browser headers on every request; the request's own headers win, whatever their case", () => {
  const session = {};
  assert.is(browserHeaders(session), browserHeaders(session));
  const merged = requestHeaders(session, { 'user-agent': 'RefractTest/1.0', 'x-extra': 'yes' });
  assert.is(merged['user-agent'], 'RefractTest/1.0');
  assert.is(Object.keys(merged).filter((k) => k.toLowerCase() === 'user-agent').length, 1);
  assert.is(merged['x-extra'], 'yes');
  assert.ok(Object.keys(merged).some((k) => k.toLowerCase() === 'sec-ch-ua'));
});

test.run();
