import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';

/** A server process started by a test. */
export interface Child {
  url: string;
  proUrl: string;
  pid: number;
  process: ChildProcess;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** What the process wrote to stderr so far (kept only with `keepLog`). */
  log(): string;
  stop(): Promise<void>;
}

/** The resident memory (bytes) of a process, from /proc. */
export const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** The allocator settings `npm start` gives the server (package.json; docs/deployment.md says why). */
export const ALLOCATOR_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** Starts the real server's process (server/main.ts) as `npm start` does, without waiting for anything. */
export function spawnServer(root: string, env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    ['--no-node-snapshot', '--conditions=refract-source', path.join(root, 'server/main.ts')],
    {
      env: { ...ALLOCATOR_ENV, ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
}

/**
 * Starts the real server (server/main.ts) in a child process and resolves with its free endpoint's URL. With
 * `keepLog`, its stderr (the structured log) is kept for `log()`; otherwise it is drained unread.
 */
export async function startChild(
  root: string,
  env: Record<string, string>,
  opts: { keepLog?: boolean } = {},
): Promise<Child> {
  const child = spawnServer(root, env);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let err = '';
  const [url, proUrl] = await new Promise<[string, string]>((resolve, reject) => {
    const onData = (c: Buffer) => {
      err += c;
      const m = /free (http:\/\/[^,]+), pro (http:\/\/[\d.:[\]a-z]+)/.exec(err);
      if (!m) return;
      // From here on the child's log is drained unread: scanning it would load this process, which also runs
      // the floor and the fixture server, and would skew the comparison.
      child.stderr!.off('data', onData);
      child.stderr!.on(
        'data',
        opts.keepLog
          ? (more: Buffer) => {
              err += more;
            }
          : () => {},
      );
      resolve([m[1]!, m[2]!]);
    };
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return {
    url,
    proUrl,
    pid: child.pid!,
    process: child,
    exited,
    log: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
