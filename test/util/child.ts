import { spawn } from 'node:child_process';
import path from 'node:path';

/** Starts the real server (server/main.ts) in a child process and resolves with its free endpoint's URL. */
export async function startChild(root: string, env: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(root, 'server/main.ts')], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const onData = (c: Buffer) => {
      err += c;
      const m = /free (http:\/\/[^,]+),/.exec(err);
      if (!m) return;
      // From here on the child's log is drained unread: scanning it would load this process, which also runs
      // the floor and the fixture server, and would skew the comparison.
      child.stderr!.off('data', onData);
      child.stderr!.on('data', () => {});
      resolve(m[1]!);
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { url, pid: child.pid!, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}
