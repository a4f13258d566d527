// `npm run bench borrowed`: what each borrowed internal of docs/architecture.md buys, measured side by side in one
// run. The patches of patches/: the articles corpus's Markdown with linkedom, Readability and ioredis as patched
// and as published (unpatched copies made here, under node_modules/.refract-unpatched), each in a process of its
// own, alternated, with and without ioredis loaded. Crawlee's delayRequest: the heap a crawler keeps after tasks
// on as many domains, with Crawlee's method and with Refract's override. The request store handed to Crawlee as its
// queue: a task's time through a keep-alive crawler with it and with Crawlee's own in-memory RequestQueue.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHILD = path.join(import.meta.dirname, 'borrowed-child.ts');
/** Where the patched packages are copied as published, for the child processes to resolve them from. */
export const UNPATCHED = path.join(ROOT, 'node_modules/.refract-unpatched');
const ROUNDS = 3;
const DOMAINS = 50_000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Copies each patched package and takes its patch back out: the package as published. */
function unpatchedCopies(): string[] {
  rmSync(UNPATCHED, { recursive: true, force: true });
  const names: string[] = [];
  for (const file of readdirSync(path.join(ROOT, 'patches'))) {
    const patch = readFileSync(path.join(ROOT, 'patches', file), 'utf8');
    const name = /^diff --git a\/node_modules\/((?:@[^/]+\/)?[^/]+)\//m.exec(patch)![1]!;
    cpSync(path.join(ROOT, 'node_modules', name), path.join(UNPATCHED, 'node_modules', name), { recursive: true });
    execFileSync('patch', ['-R', '-p1', '-s', '-d', UNPATCHED], { input: patch });
    names.push(name);
  }
  return names;
}

function child(args: string[], nodeArgs: string[] = []): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...nodeArgs, '--conditions=refract-source', CHILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CRAWLEE_PERSIST_STORAGE: 'false', CRAWLEE_LOG_LEVEL: 'OFF' },
    });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    proc.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args}: exit ${code}`)),
    );
  });
}

export async function benchBorrowed(): Promise<string[]> {
  const lines: string[] = [];
  if (!existsSync(path.join(ROOT, '../shared/corpus/articles/dev'))) return ['(no articles corpus)'];
  const names = unpatchedCopies();
  const sides = [
    ['patched', ''],
    ['unpatched', ''],
    ['patched', 'ioredis'],
    ['unpatched', 'ioredis'],
  ] as const;
  const times = new Map<string, number[]>(sides.map(([m, x]) => [`${m} ${x}`, []]));
  const chars = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, extra] of sides) {
      const r = await child(['content', mode, extra]);
      times.get(`${mode} ${extra}`)!.push(r.msPerPage!);
      chars.set(mode, r.chars!);
    }
  }
  lines.push(
    `patches (${names.join(', ')}): Markdown of the articles corpus, ms/page, median of ${ROUNDS} processes each`,
  );
  for (const extra of ['', 'ioredis']) {
    const patched = median(times.get(`patched ${extra}`)!);
    const published = median(times.get(`unpatched ${extra}`)!);
    lines.push(
      `  ${extra ? 'with ioredis loaded' : 'no ioredis loaded  '}: patched ${patched.toFixed(2)}, as published ${published.toFixed(2)}  (${(published / patched).toFixed(2)}x)`,
    );
  }
  lines.push(
    `  output: ${chars.get('patched') === chars.get('unpatched') ? 'the same length' : `differs (${chars.get('patched')} vs ${chars.get('unpatched')} characters)`}`,
  );
  rmSync(UNPATCHED, { recursive: true, force: true });

  const domains = {
    crawlee: [] as number[],
    refract: [] as number[],
    crawleeUs: [] as number[],
    refractUs: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['crawlee', 'refract'] as const) {
      const r = await child(['domains', mode, String(DOMAINS)], ['--expose-gc']);
      domains[mode].push(r.retainedBytes!);
      domains[`${mode}Us`].push(r.usPerTask!);
    }
  }
  const kept = (median(domains.crawlee) - median(domains.refract)) / DOMAINS;
  lines.push(
    `Crawlee's delayRequest: ${DOMAINS.toLocaleString('en')} tasks on as many domains; heap kept after them: Crawlee's ${(median(domains.crawlee) / 2 ** 20).toFixed(1)} MB, Refract's override ${(median(domains.refract) / 2 ** 20).toFixed(1)} MB: ${kept.toFixed(0)} bytes a domain, for the life of the process (${((kept * 1e6) / 2 ** 20).toFixed(0)} MB a million domains); ${median(domains.crawleeUs).toFixed(1)} vs ${median(domains.refractUs).toFixed(1)} us a task`,
  );
  const queue = { crawlee: [] as number[], refract: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['crawlee', 'refract'] as const)
      queue[mode].push((await child(['queue', mode, '500'])).msPerTask!);
  }
  lines.push(
    `the request store as requestQueue: 500 tasks one after another through a keep-alive crawler, ms a task: Crawlee's in-memory RequestQueue ${median(queue.crawlee).toFixed(2)}, Refract's store ${median(queue.refract).toFixed(2)} (${(median(queue.crawlee) - median(queue.refract)).toFixed(2)} ms a request)`,
  );
  return lines;
}
