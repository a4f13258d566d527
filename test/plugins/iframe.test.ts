import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, recordingServer, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';
import { findEndpoint, loadProviders } from '../../plugins/iframe/providers.ts';

let fx: Fixture;
let app: Handlers;
let privateHost: Awaited<ReturnType<typeof recordingServer>>;
const asked: URL[] = [];

const html = (body: string) => (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};
const page = (head: string) =>
  html(
    `<html><head><title>Clip</title>${head}</head><body><p>A page with a clip and enough text to be static.</p></body></html>`,
  );

/** A loopback oEmbed provider: a video with its loader script, a photo, or the same video as XML. */
function provider(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'http://x');
  asked.push(url);
  const kind = url.searchParams.get('kind');
  if (kind === 'xml') {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      '<?xml version="1.0"?><oembed><type>video</type><html>&lt;iframe src="https://player.example/v/9"&gt;&lt;/iframe&gt;</html></oembed>',
    );
    return;
  }
  const body =
    kind === 'photo'
      ? { type: 'photo', url: 'https://images.example/p.jpg', width: 640, height: 480, title: 'A "quoted" photo' }
      : {
          type: 'video',
          html: `<blockquote class="clip" data-id="7">Clip ${url.searchParams.get('url')}</blockquote><script async src="https://cdn.example/embed.js" charset="utf-8"></script>`,
          width: 480,
        };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

test.before(async () => {
  // A host outside the SSRF allowlist (127.0.0.2) that records every request reaching it.
  privateHost = await recordingServer('127.0.0.2');
  fx = await serveFixtures({
    '/oembed': provider,
    '/discovered': (req, res) =>
      page(
        `<link rel="alternate" type="application/json+oembed" href="/oembed?url=${encodeURIComponent(`http://${req.headers.host}/discovered`)}" title="Clip">`,
      )(req, res),
    '/xml': page('<link rel="alternate" type="text/xml+oembed" href="/oembed?kind=xml">'),
    '/photo': page('<link rel="alternate" type="application/json+oembed" href="/oembed?kind=photo">'),
    '/private': (req, res) =>
      page(`<link rel="alternate" type="application/json+oembed" href="http://${privateHost.url}/oembed">`)(req, res),
    '/plain': page(''),
    '/listed/42': page(''),
  });
  // The operator's providers file: this loopback host's /listed/* pages are served by its /oembed endpoint.
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'refract-oembed-')), 'providers.json');
  writeFileSync(
    file,
    JSON.stringify([
      { provider_name: 'Loopback', endpoints: [{ schemes: [`${fx.url}/listed/*`], url: `${fx.url}/oembed` }] },
    ]),
  );
  app = await startHandlers({ REFRACT_OEMBED_PROVIDERS: file });
});

test.after(async () => {
  await app.close();
  await privateHost.close();
  await fx.close();
});

const iframe = async (name: string, extra = '') => {
  const res = await call(app.free, `url=${q(`${fx.url}/${name}`)}&iframe${extra}`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data.iframe;
};

test("iframe through the page's oEmbed discovery link: html without its scripts, scripts listed, sizes passed on", async () => {
  const embed = await iframe('discovered', '.maxWidth=400&iframe.maxHeight=300');
  assert.is(embed.html, `<blockquote class="clip" data-id="7">Clip ${fx.url}/discovered</blockquote>`);
  assert.equal(embed.scripts, [{ async: true, src: 'https://cdn.example/embed.js', charset: 'utf-8' }]);
  const call = asked.at(-1)!;
  assert.is(call.searchParams.get('maxwidth'), '400');
  assert.is(call.searchParams.get('maxheight'), '300');
});

test('iframe from XML discovery, and a photo answer becomes an escaped <img>', async () => {
  assert.equal(await iframe('xml'), { html: '<iframe src="https://player.example/v/9"></iframe>', scripts: [] });
  assert.equal(await iframe('photo'), {
    html: '<img src="https://images.example/p.jpg" width="640" height="480" alt="A &quot;quoted&quot; photo">',
    scripts: [],
  });
});

test('iframe through the providers list when the page has no discovery link', async () => {
  const before = asked.length;
  const embed = await iframe('listed/42');
  assert.match(
    embed.html,
    /^<blockquote class="clip" data-id="7">Clip http:\/\/127\.0\.0\.1:\d+\/listed\/42<\/blockquote>$/,
  );
  const call = asked.at(-1)!;
  assert.is(asked.length, before + 1);
  assert.is(call.searchParams.get('format'), 'json');
  assert.is(call.searchParams.get('url'), `${fx.url}/listed/42`);
});

test('the shipped providers list resolves well-known sites without any download', () => {
  const shipped = loadProviders(undefined);
  assert.is(
    findEndpoint('https://www.youtube.com/watch?v=dQw4w9WgXcQ', shipped)?.url,
    'https://www.youtube.com/oembed',
  );
  assert.is(findEndpoint('https://vimeo.com/76979871', shipped)?.url, 'https://vimeo.com/api/oembed.json');
  assert.is(findEndpoint('https://example.org/nothing', shipped), undefined);
});

test('no embed: null when nothing provides one, and a discovery link to a private address is never fetched', async () => {
  assert.is(await iframe('plain'), null);
  assert.is(await iframe('private'), null);
  // Its discovery link names a private host, which was never contacted (the guard refused it).
  assert.equal(privateHost.seen, []);
  const bad = await call(app.free, `url=${q(`${fx.url}/plain`)}&iframe.maxWidth=wide`);
  assert.is(bad.status, 400);
  assert.is(bad.body.data.param, 'iframe.maxWidth');
});

test.run();
