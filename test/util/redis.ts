import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './serve.ts';
import { Redis } from 'ioredis';

/** A real Redis for a test: the one CI started (REFRACT_TEST_REDIS_URL), or a private redis-server on a free port. */
export interface TestRedis {
  url: string;
  flush(): Promise<void>;
  close(): Promise<void>;
}

async function flushAll(url: string): Promise<void> {
  const client = new Redis(url);
  await client.flushdb();
  await client.quit();
}

/** Runs redis-server on a loopback port until it says it is ready. */
async function runRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
      if (/Ready to accept connections/i.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return child;
}

/** A Redis of the test's own, that it may kill (SIGKILL, as a crash) and start again, empty, on the same port. */
export async function startOwnRedis(): Promise<{ url: string; kill(): Promise<void>; restart(): Promise<void> }> {
  const port = await freePort();
  let child: ChildProcess | undefined = await runRedis(port);
  const kill = async () => {
    if (!child) return;
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    child = undefined;
  };
  return {
    url: `redis://127.0.0.1:${port}/0`,
    kill,
    restart: async () => {
      await kill();
      child = await runRedis(port);
    },
  };
}

/** Starts (or reuses) Redis and empties the database the test will use. */
export async function startRedis(): Promise<TestRedis> {
  const shared = process.env.REFRACT_TEST_REDIS_URL;
  let child: ChildProcess | undefined;
  let url: string;
  if (shared) {
    // The shared server's database 15 is the tests' own, so nothing else on it is touched; the runner gives files
    // that run at once a database each (REFRACT_TEST_REDIS_DB).
    url = `${shared.replace(/\/\d*$/, '')}/${Number(process.env.REFRACT_TEST_REDIS_DB) || 15}`;
  } else {
    const port = await freePort();
    child = await runRedis(port);
    url = `redis://127.0.0.1:${port}/0`;
  }
  await flushAll(url);
  return {
    url,
    flush: () => flushAll(url),
    close: async () => {
      if (!child) return;
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
