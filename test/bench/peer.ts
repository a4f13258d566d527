// The peer users would pick instead of Refract: Microlink's open-source stack behind a tiny Microlink-style
// server (../shared/peers/microlink). The bench installs it when needed and starts it as a child process.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const PEER_DIR = process.env.REFRACT_PEER_DIR || path.resolve(ROOT, '../shared/peers/microlink');

export interface Peer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the peer on a free loopback port (installing it first when its node_modules are missing). */
export async function startPeer(): Promise<Peer | undefined> {
  if (!existsSync(path.join(PEER_DIR, 'server.mjs'))) return undefined;
  const node = path.join(PEER_DIR, 'node_modules/.bin/node');
  if (!existsSync(node)) execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEER_DIR, stdio: 'ignore' });
  const child = spawn(node, ['server.mjs'], {
    cwd: PEER_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.resume();
    child.once('exit', (code) => reject(new Error(`the peer exited ${code}: ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
