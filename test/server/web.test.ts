// The public face: /openapi.json (valid OpenAPI 3.1, every parameter the plan accepts and nothing else, a
// third-party plugin's included), the reference page rendered offline, and the playground driven in Chromium.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CODES } from '../../engine/kernel/errors.ts';
import { coreSchema, TEST_HOOK_PARAMS } from '../../engine/plan/options.ts';
import { parseQuery } from '../../engine/plan/params.ts';
import type { Plan } from '../../engine/plan/plan.ts';
import type { QueryParameter } from '../../server/reference/openapi-params.ts';
import { CORE_DOCS } from '../../server/reference/parameter-docs.ts';
import type { App } from '../../server/app.ts';
import wordCount from '../../fixtures/plugins/word-count/index.ts';
import { startRefract } from '../util/refract.ts';
import { ROUTES, routeOf } from '../../server/routes.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
let app: App;
let fx: Fixture;
let browser: Browser;
let doc: {
  paths: Record<string, { get: { parameters: QueryParameter[] } }>;
  servers: { url: string }[];
  components: Record<string, unknown>;
};
let params: QueryParameter[];

/** The price the page `/changing` shows (the playground's change report). */
let price = '19.99';

test.before(async () => {
  fx = await serveFixtures({
    '/changing': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><head><title>Tea at ${price}</title></head><body><main><h1>Green tea</h1><p>Now ${price} a tin.</p><p>Loose leaf green tea from the hills, picked in spring and dried in the shade.</p></main></body></html>`,
      );
    },
  });
  app = await startRefract({ REFRACT_PROXY_LOCATIONS: 'us=http://127.0.0.1:9' }, [wordCount]);
  doc = await (await fetch(`${app.freeUrl}/openapi.json`)).json();
  params = doc.paths['/']!.get.parameters;
  browser = await chromium.launch({ executablePath: app.engine.config.chromePath });
});

test.after(async () => {
  await browser.close();
  await app.close();
  await fx.close();
});

test('/openapi.json is valid OpenAPI 3.1 with both endpoints, the key scheme, JSend answers and every code', async () => {
  const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  assert.equal(
    doc.servers.map((s) => s.url),
    [app.freeUrl, app.proUrl],
  );
  const pro = await (await fetch(`${app.proUrl}/openapi.json`)).json();
  assert.equal(pro, doc, 'the same description on the pro endpoint');
  const text = JSON.stringify(doc);
  for (const code of Object.keys(CODES)) assert.ok(text.includes(`"${code}"`), code);
  assert.ok(text.includes('"x-api-key"'));
  for (const header of ['x-cache-status', 'x-fetch-mode', 'x-pricing-plan', 'x-rate-limit-remaining'])
    assert.ok(text.includes(`"${header}"`), header);
});

/** Every parameter name a zod schema accepts, walked from the validating schema itself (not from JSON Schema). */
function accepted(prefix: string, schema: unknown, out: Set<string>, path: ReadonlySet<unknown> = new Set()): void {
  const def = (schema as { def: Record<string, any> }).def;
  const next = (s: unknown, name = prefix): void => accepted(name, s, out, path);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
    case 'prefault':
    case 'readonly':
      next(def.innerType);
      return;
    // A value checked and then transformed is described by what is checked; a coercion by what it produces.
    case 'pipe':
      next(def.in.def.type === 'transform' ? def.out : def.in);
      return;
    case 'object':
      for (const [key, value] of Object.entries(def.shape)) next(value, `${prefix}.${key}`);
      return;
    case 'record':
      next(def.valueType, `${prefix}.{key}`);
      return;
    case 'union':
      for (const option of def.options) next(option);
      return;
    // A recursive schema (a data rule's nested rules) is walked once.
    case 'lazy':
      if (!path.has(schema)) accepted(prefix, def.getter(), out, new Set([...path, schema]));
      return;
    case 'array': {
      // A list of objects (fallback rules) is sent as numbered keys and described with its parent.
      let element = def.element._zod.def;
      while (element.type === 'pipe' || element.type === 'optional' || element.type === 'lazy') {
        element =
          element.type === 'pipe'
            ? (element.in._zod.def.type === 'transform' ? element.out : element.in)._zod.def
            : element.type === 'lazy'
              ? element.getter()._zod.def
              : element.innerType._zod.def;
      }
      if (element.type !== 'object' && element.type !== 'union') out.add(prefix);
      return;
    }
    default:
      out.add(prefix);
  }
}

test('the description and the route table agree: every described path is routed, every route is described', () => {
  const routed = new Set(Object.keys(doc.paths).map((p) => routeOf(p.replace(/\{[^}]+\}/g, 'x'))));
  assert.equal(
    ROUTES.map((r) => r.name).filter((name) => !routed.has(name)),
    [],
  );
  assert.is(routeOf('/crawls/{id}/results'), 'crawls');
  assert.is(routeOf('/healthz'), 'own');
  // Each described operation's method is one its route answers.
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    const route = ROUTES.find((r) => r.name === routeOf(path.replace(/\{[^}]+\}/g, 'x')))!;
    for (const method of Object.keys(operations).filter((k) => k !== 'parameters'))
      assert.ok(
        (route.methods as readonly string[]).includes(method.toUpperCase()),
        `${method} ${path} (${route.name})`,
      );
  }
});

test("every parameter the plan accepts is described, a third-party plugin's too, and each has a description", () => {
  const expected = new Set<string>();
  for (const [key, schema] of Object.entries(coreSchema.shape))
    if (!TEST_HOOK_PARAMS.has(key)) accepted(key, schema, expected);
  for (const plugin of app.engine.registry.plugins) {
    expected.add(plugin.name);
    accepted(plugin.name, plugin.params, expected);
    for (const [name, schema] of Object.entries(plugin.topLevel ?? {})) accepted(name, schema, expected);
  }
  // A proxy is also one URL (`proxy=http://…`): a form the coercion accepts before the object is checked.
  expected.add('proxy');
  const described = params.map((p) => p.name);
  assert.equal(new Set(described).size, described.length, 'no parameter twice');
  const missing = [...expected].filter((n) => !described.includes(n));
  const extra = described.filter((n) => !expected.has(n));
  assert.equal({ missing, extra }, { missing: [], extra: [] });
  assert.ok(described.includes('wordCount.selector'), "the third-party plugin's option");
  for (const key of Object.keys(coreSchema.shape))
    assert.ok(CORE_DOCS[key as keyof typeof CORE_DOCS], `${key} has a description`);
  for (const p of params) assert.ok(p.description.length > 5, `${p.name} has a description`);
  // Each built-in option says what it does, not only whose it is or its default (the texts feed /docs and MCP).
  const bare = params.filter(
    (p) => !p.name.startsWith('wordCount') && /^(An option of the|Default:|`[\w.]+` option\.)/.test(p.description),
  );
  assert.equal(
    bare.map((p) => p.name),
    [],
  );
  assert.match(
    params.find((p) => p.name === 'wordCount.selector')!.description,
    /^An option of the `wordCount` plugin/,
  );
  const timeout = params.find((p) => p.name === 'timeout')!;
  assert.ok(JSON.stringify(timeout.schema).includes('"string"'), 'a duration is also text');
  assert.equal(params.find((p) => p.name === 'screenshot.type')!.schema.enum, ['png', 'jpeg', 'webp', 'avif']);
  assert.equal(params.find((p) => p.name === 'screenshot.quality')!.schema, {
    type: 'integer',
    minimum: 0,
    maximum: 100,
  });
  assert.is(params.find((p) => p.name === 'meta')!.schema.default, true);
  assert.ok(params.find((p) => p.name === 'ttl')!['x-refract-pro']);
});

/** A value the schema allows, for a parameter of this name. */
function example(name: string, schema: QueryParameter['schema'], target: string, described?: QueryParameter): string {
  const given: Record<string, string> = {
    url: target,
    htmlUrl: target,
    device: 'iPhone 12',
    'screenshot.device': 'iPhone 12',
    proxy: 'http://127.0.0.1:9',
    'proxy.url': 'http://127.0.0.1:9',
    'proxy.location': 'us',
    embed: 'title',
    filter: 'title',
    'screenshot.overlay.background': '#ffffff',
    'pdf.width': '10cm',
    'pdf.height': '10cm',
    'pdf.margin': '1cm',
    'pdf.pageRanges': '1',
    function: '() => 1',
    'function.code': '() => 1',
    'data.{key}.evaluate': 'document.title',
    'data.{key}.attr': 'text',
    screenshot: 'iPhone 12',
    staleTtl: '60000',
  };
  if (given[name]) return given[name]!;
  if (typeof schema.default === 'string') return schema.default;
  if (typeof described?.['x-refract-default'] === 'string') return described['x-refract-default'] as string;
  if (Array.isArray(schema.examples)) return String(schema.examples[0]);
  const alternatives = [schema, ...((schema.anyOf ?? []) as QueryParameter['schema'][])];
  const listed =
    alternatives.find((a) => Array.isArray(a.enum))?.enum ?? (schema.items as { enum?: unknown[] } | undefined)?.enum;
  if (Array.isArray(listed)) return String(listed[0]);
  if (alternatives.some((a) => a.type === 'boolean')) return 'true';
  const n = alternatives.find((a) => a.type === 'number' || a.type === 'integer');
  if (n) return String(n.minimum ?? Math.min(1, (n.maximum as number | undefined) ?? 1));
  return 'main';
}

/** Where a parameter's value lands in a plan: the step's options for a plugin, the general options otherwise. */
function reached(plan: Plan, name: string): boolean {
  // A plugin's top-level option (`video`) lands in its owner's options (meta's).
  const owner = app.engine.registry.ownerOf(name);
  if (owner) return plan.steps.find((s) => s.name === owner.name)?.opts[name] !== undefined;
  const parts = name.replace('{key}', 'k').split('.');
  const step = plan.steps.find((s) => s.name === parts[0]);
  if (step && parts.length === 1) return true;
  let node: unknown = step ? step.opts : plan.options;
  for (const part of step ? parts.slice(1) : parts) {
    if (!node || typeof node !== 'object') return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
}

test('every described parameter, given a value its schema allows, is accepted by the plan and reaches it', () => {
  const target = `${fx.url}/sites/article/index.html`;
  for (const p of params) {
    const search = new URLSearchParams({ url: target });
    // Options that go with another: a stale threshold within a ttl, a quality for JPEG.
    const along: Record<string, [string, string]> = {
      staleTtl: ['ttl', '120000'],
      'screenshot.quality': ['screenshot.type', 'jpeg'],
    };
    if (along[p.name]) search.set(...along[p.name]!);
    // A bare output that needs options (`data`) is accepted as `false`, which turns it off.
    const off = p['x-refract-needs-options'] && p.name !== 'function';
    search.set(p.name.replace('{key}', 'k'), off ? 'false' : example(p.name, p.schema, target, p));
    let plan: Plan;
    try {
      plan = app.engine.plan(parseQuery(search), 'pro');
    } catch (err) {
      throw new Error(`${p.name}=${search.get(p.name.replace('{key}', 'k'))}: ${(err as Error).message}`);
    }
    assert.equal(plan.unknownParams, [], p.name);
    if (!off) assert.ok(reached(plan, p.name), `${p.name} reaches the plan`);
  }
});

test('every parameter at its described default, sent together (as generated clients and "Try it out" do), answers like the bare url', async () => {
  const doc = (await (await fetch(`${app.freeUrl}/openapi.json`)).json()) as {
    paths: Record<string, { get: { parameters: QueryParameter[] } }>;
  };
  const params = doc.paths['/']!.get.parameters;
  const target = `${fx.url}/sites/article/index.html`;
  const query = new URLSearchParams({ url: target });
  let sent = 0;
  for (const p of params) {
    const initial = p.schema.default;
    if (initial === undefined || p.name === 'url') continue;
    query.set(p.name, Array.isArray(initial) ? initial.join(',') : String(initial));
    sent++;
  }
  assert.ok(sent >= 5, `${sent} defaults sent`);
  const withDefaults = await fetch(`${app.freeUrl}/?${query}`);
  const body = (await withDefaults.json()) as { status: string; data: Record<string, unknown>; message?: string };
  assert.is(withDefaults.status, 200, body.message);
  const bare = (await (await fetch(`${app.freeUrl}/?url=${encodeURIComponent(target)}`)).json()) as {
    data: Record<string, unknown>;
  };
  const stable = (d: Record<string, unknown>) => ({ ...d, headers: undefined });
  assert.equal(stable(body.data), stable(bare.data));
  // Options of an output keep their default in the text and in x-refract-default.
  const scale = params.find((p) => p.name === 'pdf.scale')!;
  assert.is(scale.schema.default, undefined);
  assert.is((scale as QueryParameter & { 'x-refract-default'?: unknown })['x-refract-default'], 1);
  assert.match(scale.description, /Default: `1`/);
});

test('/docs renders the reference from the description, offline (swagger-ui served by Refract)', async () => {
  const page = await browser.newPage();
  const outside: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(app.freeUrl)) outside.push(r.url());
  });
  try {
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(`${app.freeUrl}/docs`);
    await page.locator('.opblock-summary-path', { hasText: '/openapi.json' }).waitFor();
    assert.ok((await page.locator('.opblock-summary-path[data-path="/"]').count()) >= 1);
    // The service's own pages are in the reference, and its description links the error codes (a link, not text).
    for (const own of ['/metrics', '/playground', '/docs/errors'])
      assert.ok((await page.locator(`.opblock-summary-path[data-path="${own}"]`).count()) >= 1, own);
    assert.is(
      await page.locator('.info a', { hasText: 'Error codes' }).getAttribute('href'),
      `${app.freeUrl}/docs/errors`,
    );
    assert.equal(outside, [], 'nothing fetched from elsewhere');
    assert.not.ok(asked.includes('/favicon.ico'), 'no favicon request (the page names its icon)');
  } finally {
    await page.close();
  }
});

test('/playground: a URL and screenshot on, the card and the image show, the copied curl command gives the same data', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.freeUrl });
  const page = await context.newPage();
  try {
    await page.goto(`${app.freeUrl}/playground`);
    await page.locator('body[data-ready="true"]').waitFor();
    // A control per output of the registry, the third-party plugin's included, generated from /openapi.json.
    for (const name of [
      'meta',
      'screenshot',
      'pdf',
      'palette',
      'data',
      'iframe',
      'insights',
      'function',
      'wordCount',
    ]) {
      assert.is(await page.locator(`[data-output="${name}"]`).count(), 1, name);
    }
    const target = `${fx.url}/sites/article/index.html`;
    await page.fill('#url', target);
    await page.check('[data-output="screenshot"]');
    await page.selectOption('[data-param="screenshot.type"]', 'jpeg');
    await page.click('#run');
    await page.locator('body[data-done="1"]').waitFor();
    const shown = JSON.parse(await page.locator('#json').innerText());
    assert.is(shown.status, 'success', JSON.stringify(shown).slice(0, 300));
    assert.is(await page.locator('#cardTitle').innerText(), shown.data.title);
    assert.ok(shown.data.title && shown.data.description, JSON.stringify(shown.data).slice(0, 600));
    assert.is(await page.locator('#cardDescription').innerText(), shown.data.description);
    assert.is(shown.data.screenshot.type, 'jpg');
    await page.locator('#screenshot').waitFor();
    const drawn = await page
      .locator('#screenshot')
      .evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
    assert.is(drawn, shown.data.screenshot.width);
    if (shown.data.image)
      assert.ok(
        await page
          .locator('#cardImage')
          .evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth > 0)),
      );
    const mql = await page.locator('#mql').innerText();
    assert.match(mql, /screenshot": \{\s*"type": "jpeg"/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'playground.png'), fullPage: false });
    await page.click('#copyCurl');
    const command = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(command, /^curl -s '/);
    const again = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c;
      });
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl ended ${code}`))));
    });
    assert.equal(JSON.parse(again).data, shown.data);
  } finally {
    await context.close();
  }
});

test('/playground starts a crawl job on the pro endpoint with the key and options given, follows it and lists its lines', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${app.proUrl}/playground`);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.fill('#url', `${fx.url}/sites/article/index.html`);
    await page.fill('#apiKey', 'test-key');
    await page.click('#crawlJob summary');
    await page.fill('#crawlMaxPages', '2');
    await page.click('#crawlStart');
    await page.locator('body[data-crawl]').waitFor();
    assert.is(
      await page.evaluate(() => document.body.dataset.crawl),
      'completed',
      await page.locator('#crawlStatus').innerText(),
    );
    const job = JSON.parse(await page.locator('#json').innerText());
    assert.is(job.pages.done + job.pages.failed, 2);
    const items = await page.locator('#crawlResults li').allInnerTexts();
    assert.is(items.length, 2);
    assert.ok(
      items.some((t) => t.startsWith(`${fx.url}/sites/article/index.html · `)),
      items.join('\n'),
    );
    assert.match(await page.locator('#curl').innerText(), /^curl -s -X POST '.+\/crawls' .*"maxPages":2/);
    // Without a key the job is refused, and the page says why.
    await page.fill('#apiKey', '');
    await page.evaluate(() => {
      delete document.body.dataset.crawl;
    });
    await page.click('#crawlStart');
    await page.locator('body[data-crawl="error"]').waitFor();
    assert.match(await page.locator('#crawlStatus').innerText(), /401 EAUTH/);
  } finally {
    await page.close();
  }
});

test('/playground shows a change report: the first read, then each changed field and the content diff', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${app.freeUrl}/playground`);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.fill('#url', `${fx.url}/changing`);
    await page.check('[data-output="changes"]');
    await page.click('#run');
    await page.locator('body[data-done="1"]').waitFor();
    assert.match(await page.locator('#changesStatus').innerText(), /^new:/);
    assert.ok(await page.locator('#changesFields').isHidden());
    price = '17.49';
    await page.click('#run');
    await page.locator('body[data-done="2"]').waitFor();
    assert.match(
      await page.locator('#changesStatus').innerText(),
      /^changed since /,
      await page.locator('#json').innerText(),
    );
    const rows = await page
      .locator('#changesFields tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent)));
    assert.ok(
      rows.some((r) => r[0] === 'title' && r[1] === 'Tea at 19.99' && r[2] === 'Tea at 17.49'),
      JSON.stringify(rows),
    );
    assert.equal(await page.locator('#changesDiff .del').allInnerTexts(), ['-Now 19.99 a tin.\n']);
    assert.equal(await page.locator('#changesDiff .add').allInnerTexts(), ['+Now 17.49 a tin.\n']);
  } finally {
    await page.close();
  }
});

test('/playground maps the site of its URL (GET /map) and lists what it found', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${app.freeUrl}/playground`);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.fill('#url', `${fx.url}/sites/article/index.html`);
    await page.click('#siteMap summary');
    await page.click('#mapRun');
    await page.locator('body[data-map]').waitFor();
    assert.is(
      await page.evaluate(() => document.body.dataset.map),
      'done',
      await page.locator('#mapStatus').innerText(),
    );
    const items = await page.locator('#mapResults li').allInnerTexts();
    assert.ok(items.includes(`${fx.url}/sites/article/index.html`), items.join('\n'));
    assert.ok(
      items.every((u) => u.startsWith(fx.url)),
      'same site only',
    );
    assert.match(await page.locator('#mapStatus').innerText(), new RegExp(`^${items.length} URLs$`));
    assert.match(await page.locator('#curl').innerText(), /^curl -s '.+\/map\?url=/);
  } finally {
    await page.close();
  }
});

test('/playground on a phone-sized screen (390 px): nothing is cut off, every control and the answer fit the width', async () => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  try {
    await page.goto(`${app.freeUrl}/playground`);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.fill('#url', `${fx.url}/sites/article/index.html`);
    await page.click('#run');
    await page.locator('body[data-done="1"]').waitFor();
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      wide: [...document.querySelectorAll('main *')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1);
        })
        .filter((el) => !el.closest('pre'))
        .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`)
        .slice(0, 5),
    }));
    assert.ok(overflow.page <= 390, `the page is ${overflow.page} px wide`);
    assert.equal(overflow.wide, [], "elements past the screen's edge");
    const box = await page.locator('#run').boundingBox();
    assert.ok(box && box.x + box.width <= 390, 'the Run button is on the screen');
    // The answer's JSON keeps its lines (scrolled sideways), never breaking inside a word.
    assert.is(await page.evaluate(() => getComputedStyle(document.getElementById('json')!).whiteSpace), 'pre');
  } finally {
    await context.close();
  }
});

test("/docs/errors in a browser: a `more` link lands on its code's section, the report link shows the request id", async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${app.freeUrl}/docs/errors`);
    // A table of contents: every code, linked to its section.
    const listed = await page.locator('nav .toc a').allInnerTexts();
    assert.equal(listed.filter((t) => /^E[A-Z]+$/.test(t)).sort(), Object.keys(CODES).sort());
    const res = await fetch(`${app.freeUrl}/?url=${encodeURIComponent('http://127.0.0.2/')}`);
    const body = (await res.json()) as { more: string; report: string; id: string };
    await page.goto(body.more);
    assert.is(await page.evaluate(() => document.querySelector(':target')?.textContent), 'EFORBIDDENURL');
    await page.goto(body.report);
    assert.match(await page.locator('#request').innerText(), new RegExp(body.id));
  } finally {
    await page.close();
  }
});

test.run();
