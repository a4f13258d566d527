import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './serve.ts';
import { createClient } from '@keyv/redis';

/** A real Redis for a test: the one CI started (REFRACT_TEST_REDIS_URL), or a private redis-server on a free port. */
export interface TestRedis { url: string; flush(): Promise<void>; close(): Promise<void> }

async function flushAll(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.flushDb();
  await client.quit();
}

/** Starts (or reuses) Redis and empties the database the test will use. */
export async function startRedis(): Promise<TestRedis> {
  const shared = process.env.REFRACT_TEST_REDIS_URL;
  let child: ChildProcess | undefined;
  let url: string;
  if (shared) {
    // The shared server's database 15 is the tests' own, so nothing else on it is touched.
    url = `${shared.replace(/\/\d*$/, '')}/15`;
  } else {
    const port = await freePort();
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (c: Buffer) => { out += c; if (/Ready to accept connections/i.test(out)) resolve(); });
      child!.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
    });
    child.stdout!.resume();
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
