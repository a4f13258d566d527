// Runs the `refract` command (bin/refract.ts) with Node 24, as `npx refract` would.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, watch, existsSync } from 'node:fs';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/refract.ts');

/** Starts `refract <args>` with the test environment (loopback allowed, quiet logs) plus `env`. */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
): ChildProcess & { exited: Promise<number>; stdoutText(): string; stderrText(): string } {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--conditions=refract-source', BIN, ...args], {
    env: { ...process.env, REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1', REFRACT_LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c;
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c;
  });
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : 1))),
  );
  return Object.assign(child, { exited, stdoutText: () => out, stderrText: () => err });
}

/** The complete JSON lines of a file (a torn last line is not counted). */
export function jsonLines<T = Record<string, unknown>>(file: string): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** Resolves once `file` holds at least `count` complete lines (woken by the file's changes, not by polling). */
export function untilLines(file: string, count: number, failed: Promise<unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(file, () => check());
    const check = () => {
      if (jsonLines(file).length >= count) {
        watcher.close();
        resolve();
      }
    };
    failed.then(() => {
      watcher.close();
      reject(new Error(`the process ended before ${file} had ${count} lines`));
    });
    check();
  });
}
