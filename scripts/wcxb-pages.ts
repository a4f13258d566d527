// WCXB's development split beside the checkout (../shared/corpus/wcxb): its pages unpacked once into the temp folder,
// where its own scorer (score.mjs) unpacks them too, so each reader of the pages shares one copy.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The split's folder: `labels.json.gz` and `pages.tar.xz`. */
export const WCXB = path.resolve(import.meta.dirname, '../../shared/corpus/wcxb');

/** The folder of the split's pages (`<id>.html`), unpacked on first use; throws when the corpus is not there. */
export function wcxbPagesDir(): string {
  const cache = path.join(os.tmpdir(), 'refract-wcxb-dev');
  const done = path.join(cache, 'pages', '4999.done');
  if (!existsSync(done)) {
    mkdirSync(cache, { recursive: true });
    execFileSync('tar', ['-xJf', path.join(WCXB, 'pages.tar.xz'), '-C', cache]);
    writeFileSync(done, '');
  }
  return path.join(cache, 'pages');
}
