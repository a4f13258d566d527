// `npm run build`: the package as plain Node runs it from node_modules, where Node never strips types:
// JavaScript and `.d.ts` in dist/ (relative `.ts` imports rewritten to `.js`), plus the files read at run time.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// Read by the server next to its code: the error reference (served at /docs/errors) and the web pages.
cpSync(path.join(root, 'docs'), path.join(dist, 'docs'), { recursive: true });
cpSync(path.join(root, 'server/reference/web'), path.join(dist, 'server/reference/web'), { recursive: true });
chmodSync(path.join(dist, 'bin/refract.js'), 0o755);
console.log(`refract build: ${path.relative(process.cwd(), dist) || '.'}/ written`);
