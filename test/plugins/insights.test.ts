import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { spawnSync } from 'node:child_process';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;

const STACK = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Built with things</title>
<meta name="generator" content="WordPress 6.4.2">
<script src="/js/jquery-3.7.1.min.js"></script><script src="/js/app.js"></script></head>
<body><h1>A shop</h1><p>Plenty of words about a shop built with a known stack, enough to be a static page.</p></body></html>`;

const js = (body: string) => (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/javascript' });
  res.end(body);
};

test.before(async () => {
  fx = await serveFixtures({
    '/stack': (_: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        server: 'nginx/1.25.3',
        'x-powered-by': 'Express',
      });
      res.end(STACK);
    },
    '/js/jquery-3.7.1.min.js': js('window.jQuery = window.$ = { fn: { jquery: "3.7.1" } };'),
    // Only the running page shows this one: its file name and the HTML say nothing of Vue.
    '/js/app.js': js('window.Vue = { version: "3.4.21" };'),
    // A page whose image never arrives: its load never ends, so an audit of it runs until it is cut off.
    '/stalls': (_: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', server: 'nginx/1.25.3' });
      res.end(STACK.replace('</body>', '<img src="/never.png" alt=""></body>'));
    },
    '/never.png': () => undefined,
  });
  app = await startHandlers();
});

test.after(async () => {
  await app.close();
  await fx.close();
});

type Tech = {
  name: string;
  version: string | null;
  confidence: number;
  categories: { name: string }[];
  website: string;
};
const find = (list: Tech[], name: string) => list.find((t) => t.name === name);

test('technologies from script URLs, headers and the meta generator, with versions and categories', async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/stack`)}&insights.technologies=true&meta=false&prerender=false`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const list: Tech[] = res.body.data.insights.technologies;
  assert.is(find(list, 'jQuery')?.version, '3.7.1');
  assert.is(find(list, 'Nginx')?.version, '1.25.3');
  assert.is(find(list, 'WordPress')?.version, '6.4.2');
  assert.ok(find(list, 'Express'));
  assert.ok(find(list, 'PHP'), 'implied by WordPress');
  assert.ok(find(list, 'jQuery')!.categories.some((c) => c.name === 'JavaScript libraries'));
  assert.ok(find(list, 'jQuery')!.confidence > 0 && find(list, 'jQuery')!.website.startsWith('http'));
  assert.is(find(list, 'Vue.js'), undefined, 'not visible without running the page');
  assert.is(res.body.data.insights.lighthouse, undefined);
});

test('a rendered page adds what its JavaScript globals reveal', async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/stack`)}&insights.technologies=true&meta=false&prerender=true`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const list: Tech[] = res.body.data.insights.technologies;
  assert.is(find(list, 'Vue.js')?.version, '3.4.21');
  assert.is(find(list, 'jQuery')?.version, '3.7.1');
});

test('Lighthouse: category scores in the JSON report, and HTML and CSV reports served by embed', async () => {
  const target = q(`${fx.url}/sites/article/index.html`);
  const json = await call(
    app.free,
    `url=${target}&insights.lighthouse.categories=performance,seo&insights.lighthouse.preset=desktop&meta=false&timeout=60s`,
  );
  assert.is(json.status, 200, JSON.stringify(json.body).slice(0, 500));
  const lh = json.body.data.insights.lighthouse;
  assert.equal(Object.keys(lh.scores).sort(), ['performance', 'seo']);
  for (const score of Object.values(lh.scores))
    assert.ok(typeof score === 'number' && score >= 0 && score <= 100, String(score));
  assert.is(lh.finalDisplayedUrl ?? lh.finalUrl, `${fx.url}/sites/article/index.html`);
  assert.ok(lh.audits['first-contentful-paint'], 'the audits come with the report');
  const html = await call(
    app.free,
    `url=${target}&insights.lighthouse.output=html&insights.lighthouse.categories=seo&meta=false&timeout=60s&embed=insights.lighthouse.report.url`,
  );
  assert.is(html.status, 200);
  assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(html.headers.get('content-security-policy') ?? '', /sandbox/);
  assert.match(html.raw.toString('utf8').slice(0, 200).toLowerCase(), /<!doctype html>/);
  assert.ok(html.raw.toString('utf8').includes('Lighthouse'));
  const csv = await call(
    app.free,
    `url=${target}&insights.lighthouse.output=csv&insights.lighthouse.categories=seo&meta=false&timeout=60s&embed=insights.lighthouse.report.url`,
  );
  assert.is(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const csvText = csv.raw.toString('utf8');
  assert.ok(csvText.includes(`"${fx.url}/sites/article/index.html"`), 'the audited URL heads the report');
  assert.match(csvText, /^category,score\r?\n"seo","[\d.]+"/m);
  // The audit's own Chrome (the only child of this process started with a debugging port) is gone once the
  // answer is out.
  const left = spawnSync('pgrep', ['-P', String(process.pid), '-f', '--', '--remote-debugging-port=']);
  assert.is(left.stdout.toString().trim(), '', 'no audit browser is left running');
});

type Warned = { plugin: string; code: string; message: string }[];

test('a bare insights answers its technologies at once when the time left is too short for an audit, and says so', async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/stack`)}&insights&meta=false&prerender=false&timeout=8s`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(find(res.body.data.insights.technologies, 'jQuery')?.version, '3.7.1');
  assert.is(res.body.data.insights.lighthouse, undefined);
  const warnings: Warned = res.body.warnings;
  assert.ok(
    warnings.some((w) => w.plugin === 'insights' && /insights\.lighthouse/.test(w.message)),
    JSON.stringify(warnings),
  );
});

test('an audit cut off by the deadline is a warning: the technologies that finished are answered', async () => {
  const res = await call(
    app.free,
    `url=${q(`${fx.url}/stalls`)}&insights.technologies=true&insights.lighthouse=true&meta=false&prerender=false&timeout=6s`,
  );
  assert.ok(res.body.data.insights, JSON.stringify(res.body.warnings));
  assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  assert.is(find(res.body.data.insights.technologies, 'Nginx')?.version, '1.25.3');
  assert.is(res.body.data.insights.lighthouse, undefined);
  const warnings: Warned = res.body.warnings;
  assert.ok(
    warnings.some((w) => w.code === 'EPLUGIN' && /insights\.lighthouse left out/.test(w.message)),
    JSON.stringify(warnings),
  );
  const left = spawnSync('pgrep', ['-P', String(process.pid), '-f', '--', '--remote-debugging-port=']);
  assert.is(left.stdout.toString().trim(), '', 'no audit browser is left running');
});

test.run();
