import { readFileSync } from 'node:fs';
import path from 'node:path';

/** This package's version, from its package.json (found upwards from here: the sources and dist/ both work). */
export const VERSION: string = (() => {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'refract-api' && pkg.version) return pkg.version;
    } catch {
      /* no package.json here: look further up */
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
})();
