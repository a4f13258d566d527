import { spawn } from 'node:child_process';
import path from 'node:path';

/** Starts the real server (server/main.ts) in a child process and resolves with its free endpoint's URL. */
export async function startChild(root: string, env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(root, 'server/main.ts')], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c;
      const m = /free (http:\/\/[^,]+),/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { url, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}
