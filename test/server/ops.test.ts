// What a hosting team needs from the first day, through the real server process: health and readiness, metrics,
// the access log, the client's address behind a trusted proxy, a graceful drain on SIGTERM, and requests during
// start-up answered (503 or a result) without a crash.
import { test } from 'uvu';
import { spawn } from 'node:child_process';
import { descendantsOf, processTable } from '../../engine/browser/memory.ts';
import * as assert from 'uvu/assert';
import path from 'node:path';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, freePort, type Fixture } from '../util/serve.ts';
import { startChild, spawnServer } from '../util/child.ts';
import { call, q } from '../util/refract.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
let fx: Fixture;
/** Requests to /slow wait here until released (each reports that it arrived). */
let gate: { arrived: () => void; release: Promise<void> } | undefined;

const env = (extra: Record<string, string> = {}) => ({
  PORT: '0',
  PRO_PORT: '0',
  HOST: '127.0.0.1',
  REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  REFRACT_LOG_LEVEL: 'info',
  REFRACT_PROBE_TIMEOUT: '0',
  REFRACT_API_KEYS: 'secret-key-123',
  ...extra,
});

test.before(async () => {
  fx = await serveFixtures({
    '/slow': async (_: IncomingMessage, res: ServerResponse) => {
      const held = gate;
      if (held) {
        held.arrived();
        await held.release;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Slow</title></head><body><p>Answered once released.</p></body></html>');
    },
  });
});

test.after(async () => {
  await fx.close();
});

const page = (tag: string) => q(`${fx.url}/sites/article/index.html?${tag}`);

test('/healthz and /readyz answer on both endpoints, outside the quota', async () => {
  const app = await startChild(ROOT, env({ REFRACT_FREE_QUOTA: '1' }));
  try {
    for (let i = 0; i < 3; i++) {
      const health = await fetch(`${app.url}/healthz`);
      assert.is(health.status, 200);
      assert.equal(await health.json(), { status: 'success', data: { alive: true } });
      const ready = await fetch(`${app.url}/readyz`);
      assert.is(ready.status, 200);
      const body = (await ready.json()) as { data: { ready: boolean; checks: Record<string, boolean> } };
      assert.is(body.data.ready, true);
      assert.equal(body.data.checks, {
        started: true,
        draining: false,
        browser: true,
        redis: true,
        executor: true,
        assets: true,
      });
    }
    // The quota of one was not spent by the health checks.
    const first = await call(app.url, `url=${page('quota')}`);
    assert.is(first.status, 200, JSON.stringify(first.body).slice(0, 300));
    assert.is(first.headers.get('x-rate-limit-remaining'), '0');
  } finally {
    await app.stop();
  }
});

test('the start-up line names the address actually bound, as HOST chooses it', async () => {
  for (const host of ['0.0.0.0', '127.0.0.1']) {
    const app = await startChild(ROOT, env({ HOST: host }), { keepLog: true });
    try {
      const port = new URL(app.url).port;
      assert.match(app.log(), new RegExp(`listening on ${host.replaceAll('.', '\\.')}:${port} \\(free\\)`));
      assert.is((await fetch(`${app.url}/healthz`)).status, 200);
    } finally {
      await app.stop();
    }
  }
});

test('/metrics counts requests by output, status and cache state, and requires the token when one is set', async () => {
  const app = await startChild(ROOT, env({ REFRACT_METRICS_TOKEN: 'scrape-me' }));
  try {
    const url = `url=${page('metrics')}`;
    assert.is((await call(app.url, url)).headers.get('x-cache-status'), 'MISS');
    assert.is((await call(app.url, url)).headers.get('x-cache-status'), 'HIT');
    assert.is((await call(app.url, 'url=ftp%3A%2F%2Fx')).status, 400);
    const refused = await fetch(`${app.url}/metrics`);
    assert.is(refused.status, 401);
    assert.is(((await refused.json()) as { code: string }).code, 'EAUTH');
    assert.is((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const scrape = await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    assert.is(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await scrape.text();
    assert.match(text, /refract_requests_total\{endpoint="free",output="meta",status="200"\} 2/);
    assert.match(text, /refract_requests_total\{endpoint="free",output="none",status="400"\} 1/);
    assert.match(text, /refract_cache_total\{state="MISS"\} 1/);
    assert.match(text, /refract_cache_total\{state="HIT"\} 1/);
    assert.match(text, /refract_fetch_total\{mode="fetch"\} 1/);
    assert.match(
      text,
      /refract_request_duration_seconds_bucket\{le="\+Inf",endpoint="free",output="meta",cache="HIT"\} 1/,
    );
    assert.match(text, /refract_redis_up 1/);
    assert.match(text, /refract_browsers \d+/);
    assert.match(text, /refract_browser_queue 0/);
    assert.match(text, /refract_process_resident_memory_bytes \d+/);
  } finally {
    await app.stop();
  }
});

test('without a token, /metrics is not on the public free port (404), only on the pro port', async () => {
  const app = await startChild(ROOT, env());
  try {
    const free = await fetch(`${app.url}/metrics`);
    assert.is(free.status, 404);
    assert.match(((await free.json()) as { message: string }).message, /pro port/);
    const pro = await fetch(`${app.proUrl}/metrics`);
    assert.is(pro.status, 200);
    assert.match(await pro.text(), /refract_requests_total|refract_browsers/);
  } finally {
    await app.stop();
  }
});

test('one access line per request: id, endpoint, status, code, duration, cache, fetch mode; never a key or a header value', async () => {
  const app = await startChild(ROOT, env(), { keepLog: true });
  try {
    const ok = await call(app.proUrl, `url=${page('log')}&headers.x-secret=header-value-456`, {
      headers: { 'x-api-key': 'secret-key-123' },
    });
    assert.is(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
    const refused = await call(app.url, `url=${page('log2')}&proxy=${q('http://user:proxy-pass-789@127.0.0.1:9')}`);
    assert.is(refused.status, 400, 'proxy is a pro parameter');
    await fetch(`${app.url}/healthz`);
    // Access lines are written in batches; a graceful stop writes out the last ones.
    await app.stop();
    const lines = app
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    assert.is(lines.length, 2, 'health checks are not logged');
    const [first, second] = lines as [Record<string, unknown>, Record<string, unknown>];
    assert.is(first.id, ok.headers.get('x-request-id'));
    assert.is(first.endpoint, 'pro');
    assert.is(first.status, 200);
    assert.is(first.cache, 'MISS');
    assert.is(first.fetch, 'fetch');
    assert.is(first.output, 'meta');
    assert.is(typeof first.ms, 'number');
    assert.is(first.target, `${fx.url}/sites/article/index.html`);
    assert.is(second.endpoint, 'free');
    assert.is(second.status, 400);
    assert.is(second.code, 'EPROXY');
    const log = app.log();
    for (const secret of ['header-value-456', 'proxy-pass-789', 'secret-key-123'])
      assert.not.ok(log.includes(secret), `${secret} is not in the log`);
  } finally {
    await app.stop();
  }
});

test('behind a trusted proxy the quota counts the client it names; untrusted, X-Forwarded-For is ignored', async () => {
  const trusted = await startChild(ROOT, env({ REFRACT_FREE_QUOTA: '1', REFRACT_TRUST_PROXY: 'loopback' }));
  const plain = await startChild(ROOT, env({ REFRACT_FREE_QUOTA: '1' }));
  try {
    const as = (base: string, tag: string, headers: Record<string, string>) =>
      call(base, `url=${page(tag)}`, { headers });
    assert.is((await as(trusted.url, 't1', { 'x-forwarded-for': '203.0.113.7' })).status, 200);
    assert.is(
      (await as(trusted.url, 't2', { 'x-forwarded-for': '203.0.113.8' })).status,
      200,
      'another client has its own quota',
    );
    assert.is(
      (await as(trusted.url, 't3', { forwarded: 'for="[2001:db8::9]:4711";proto=https' })).status,
      200,
      'Forwarded names a third',
    );
    assert.is(
      (await as(trusted.url, 't4', { 'x-forwarded-for': '203.0.113.7' })).status,
      429,
      'the first client spent its quota',
    );
    // A client cannot pick its address by prepending one: the nearest untrusted hop counts.
    assert.is((await as(trusted.url, 't5', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' })).status, 429);
    assert.is((await as(plain.url, 'p1', { 'x-forwarded-for': '203.0.113.7' })).status, 200);
    assert.is(
      (await as(plain.url, 'p2', { 'x-forwarded-for': '203.0.113.8' })).status,
      429,
      'untrusted: both are the socket peer',
    );
  } finally {
    await trusted.stop();
    await plain.stop();
  }
});

test('SIGTERM: readiness goes false, new connections are refused, the 8 requests in flight are all answered', async () => {
  const app = await startChild(ROOT, env({ REFRACT_SHUTDOWN_GRACE: '20s' }));
  let arrivedCount = 0;
  let allArrived!: () => void;
  const arrivedAll = new Promise<void>((r) => {
    allArrived = r;
  });
  let release!: () => void;
  gate = {
    arrived: () => {
      if (++arrivedCount === 8) allArrived();
    },
    release: new Promise<void>((r) => {
      release = r;
    }),
  };
  try {
    // A kept-alive connection opened before the signal: it may still ask for readiness while draining.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const readyz = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${app.url}/readyz`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          })
          .on('error', reject);
      });
    assert.is(await readyz(), 200);
    const inFlight = Array.from({ length: 8 }, (_, i) =>
      call(app.url, `url=${q(`${fx.url}/slow?n=${i}`)}&prerender=false`),
    );
    await arrivedAll;
    const exited = app.exited;
    app.process.kill('SIGTERM');
    // New connections are refused once the signal is handled (polled: the signal's delivery is not observable).
    let refused = false;
    for (const until = Date.now() + 10_000; !refused && Date.now() < until; ) {
      refused = await fetch(`${app.url}/healthz`, { headers: { connection: 'close' } }).then(
        () => false,
        () => true,
      );
    }
    assert.ok(refused, 'a new connection is refused while draining');
    release();
    const answers = await Promise.all(inFlight);
    assert.equal(
      answers.map((a) => a.status),
      Array(8).fill(200),
    );
    assert.ok(answers.every((a) => a.body.data.title === 'Slow'));
    assert.is(await exited, 0, 'the process ends cleanly once drained');
    agent.destroy();
  } finally {
    gate = undefined;
    release?.();
    await app.stop();
  }
});

test('SIGTERM: a request still running when the grace ends is answered 503 EBUSY (JSend, logged as sent), not reset', async () => {
  const app = await startChild(ROOT, env({ REFRACT_SHUTDOWN_GRACE: '1s' }), { keepLog: true });
  let arrived!: () => void;
  const reached = new Promise<void>((r) => {
    arrived = r;
  });
  let release!: () => void;
  gate = {
    arrived: () => arrived(),
    release: new Promise<void>((r) => {
      release = r;
    }),
  };
  try {
    const held = call(app.url, `url=${q(`${fx.url}/slow?n=cut`)}&prerender=false`);
    await reached;
    app.process.kill('SIGTERM');
    const answer = await held;
    assert.is(answer.status, 503);
    assert.is(answer.body.status, 'error');
    assert.is(answer.body.code, 'EBUSY');
    assert.is(answer.headers.get('retry-after'), '1');
    assert.is(await app.exited, 0);
    // The access log records what was sent.
    const line = app
      .log()
      .split('\n')
      .find((l) => l.includes('"msg":"request"') && l.includes('"code":"EBUSY"'));
    assert.ok(line, app.log().slice(-1500));
    assert.match(line!, /"status":503/);
  } finally {
    gate = undefined;
    release?.();
    await app.stop();
  }
});

/** The environment of a process that npm did not start (the test runner itself runs under npm). */
const outsideNpm = (extra: Record<string, string>) => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...base, ...env(extra) } as NodeJS.ProcessEnv;
};

/** A server started by `sh -c` (as a deploy script starts it): the shell, and the server's pid once it listens. */
async function underShell(extra: Record<string, string>) {
  const shell = spawn('sh', ['-c', `"${process.execPath}" --conditions=refract-source server/main.ts; echo ended`], {
    cwd: ROOT,
    env: outsideNpm(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise<string>((resolve) =>
    shell.stderr!.on('data', (c: Buffer) => {
      log += c;
      const m = /free (http:\/\/[^,]+),/.exec(log);
      if (m) resolve(m[1]!);
    }),
  );
  const server = descendantsOf(await processTable(), shell.pid!).find((p) => p.ppid === shell.pid);
  assert.ok(server, 'the server runs under the shell');
  return { shell, url, pid: server!.pid };
}

const alive = async (pid: number) => (await processTable()).some((p) => p.pid === pid);

test('a server started by a script outlives the script; REFRACT_EXIT_WITH_PARENT=on stops it with its parent', async () => {
  const kept = await underShell({});
  const watched = await underShell({ REFRACT_EXIT_WITH_PARENT: 'on' });
  try {
    kept.shell.kill('SIGTERM');
    watched.shell.kill('SIGTERM');
    // The watched one sees its parent go within a second and drains; by then the other has had the same time.
    for (const until = Date.now() + 15_000; (await alive(watched.pid)) && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 200));
    assert.not.ok(await alive(watched.pid), 'REFRACT_EXIT_WITH_PARENT=on: the server ended with its parent');
    assert.ok(await alive(kept.pid), 'the server started by the script is still running');
    assert.is((await fetch(`${kept.url}/healthz`)).status, 200, 'and still answers');
  } finally {
    for (const pid of [kept.pid, watched.pid]) if (await alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

test('npm start, SIGTERM to the whole process group with 4 slow requests in flight: all 4 answered, then exit', async () => {
  const port = await freePort();
  let arrivedCount = 0;
  let allArrived!: () => void;
  const arrivedAll = new Promise<void>((r) => {
    allArrived = r;
  });
  let release!: () => void;
  gate = {
    arrived: () => {
      if (++arrivedCount === 4) allArrived();
    },
    release: new Promise<void>((r) => {
      release = r;
    }),
  };
  // Its own process group, as a terminal or a supervisor starts it: npm, its shell and the server.
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, ...env({ PORT: String(port), REFRACT_SHUTDOWN_GRACE: '20s' }) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  try {
    let log = '';
    await new Promise<void>((resolve) =>
      npm.stderr!.on('data', (c: Buffer) => {
        log += c;
        if (/listening on/.test(log)) resolve();
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    const inFlight = Array.from({ length: 4 }, (_, i) =>
      call(base, `url=${q(`${fx.url}/slow?g=${i}`)}&prerender=false`).catch((err: Error) => ({ status: 0, err })),
    );
    await arrivedAll;
    process.kill(-npm.pid!, 'SIGTERM');
    // Draining: new connections are refused (polled: a signal's delivery is not observable).
    let refused = false;
    for (const until = Date.now() + 10_000; !refused && Date.now() < until; )
      refused = await fetch(`${base}/healthz`, { headers: { connection: 'close' } }).then(
        () => false,
        () => true,
      );
    assert.ok(refused, 'draining');
    release();
    const answers = await Promise.all(inFlight);
    assert.equal(
      answers.map((a) => a.status),
      [200, 200, 200, 200],
      JSON.stringify(answers.map((a) => ('err' in a ? String(a.err) : a.status))),
    );
    await exited;
  } finally {
    gate = undefined;
    release?.();
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

test('requests from the moment of spawn until ready get 503 EBUSY or an answer, never a crash', async () => {
  const port = await freePort();
  const child = spawnServer(ROOT, env({ PORT: String(port) }));
  let exitCode: number | null | undefined;
  child.once('exit', (code) => {
    exitCode = code;
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c;
  });
  const base = `http://127.0.0.1:${port}`;
  const seen = new Set<number>();
  try {
    let answered = false;
    for (const until = Date.now() + 60_000; !answered && Date.now() < until; ) {
      const status = await fetch(`${base}/?url=${page('startup')}`).then(
        async (res) => {
          const body = (await res.json()) as { status: string; code?: string };
          if (res.status === 503) assert.is(body.code, 'EBUSY');
          return res.status;
        },
        () => 0,
      );
      if (status) seen.add(status);
      answered = status === 200;
      assert.is(exitCode, undefined, `the server is still running: ${stderr.slice(-500)}`);
    }
    assert.ok(answered, 'the server answered once started');
    assert.ok(
      [...seen].every((s) => s === 503 || s === 200),
      `only 503 and 200 were seen: ${[...seen]}`,
    );
  } finally {
    const done = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    if (exitCode === undefined) await done;
  }
});

test.run();
