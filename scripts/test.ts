// Runs the uvu suites with Node 24 and ends with the plain `N passed, N failed` line that CI reads.
import { spawn } from 'node:child_process';
import path from 'node:path';

const uvu = path.resolve(import.meta.dirname, '../node_modules/uvu/bin.js');
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
delete env.FORCE_COLOR;
const child = spawn(process.execPath, ['--no-node-snapshot', '--conditions=refract-source', uvu, 'test', pattern, '-i', 'util', '-i', 'bench'], {
  env: { ...env, CRAWLEE_PERSIST_STORAGE: 'false', CRAWLEE_LOG_LEVEL: 'WARNING' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, ''); process.stdout.write(chunk); });
const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
const read = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? NaN);
const total = read('Total');
const passed = read('Passed');
const skipped = read('Skipped') || 0;
if (Number.isNaN(total) || Number.isNaN(passed)) {
  console.log('0 passed, 1 failed');
  process.exit(code || 1);
}
const failed = total - passed - skipped;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code || (failed > 0 ? 1 : 0));
