// HIT throughput of the response cache: the embedded in-memory store beside Redis (a real redis-server).
import path from 'node:path';
import { serveFixtures } from '../util/serve.ts';
import { startChild } from '../util/child.ts';
import { startRedis } from '../util/redis.ts';
import { measure, get, row } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs the cache benchmark and returns its rows. */
export async function benchCache(n = 2000): Promise<string[]> {
  const fx = await serveFixtures();
  const redis = await startRedis();
  const env = {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '100000000',
    REFRACT_LOG_LEVEL: 'info',
  };
  const memory = await startChild(ROOT, env);
  const shared = await startChild(ROOT, { ...env, REDIS_URL: redis.url });
  try {
    const target = encodeURIComponent(`${fx.url}/sites/article/index.html`);
    const rows: string[] = [];
    for (const [name, base] of [
      ['memory', memory.url],
      ['redis', shared.url],
    ] as const) {
      const url = `${base}/?url=${target}`;
      const first = await get(url);
      if (first.status !== 200) throw new Error(`priming failed: ${first.status}`);
      const hit = async () => {
        const r = await get(url);
        if (r.headers['x-cache-status'] !== 'HIT') throw new Error(`expected HIT from ${name}`);
      };
      await measure(200, 4, hit); // warm-up
      rows.push(row(`HIT, ${name} store, sequential`, await measure(n / 2, 1, hit)));
      rows.push(row(`HIT, ${name} store, 8 concurrent`, await measure(n, 8, hit)));
    }
    return rows;
  } finally {
    await memory.stop();
    await shared.stop();
    await redis.close();
    await fx.close();
  }
}
