// `refract map <url>`: a site's URLs, one a line (crawl/map.ts), with the options of `GET /map`.
import { parseArgs } from 'node:util';
import type { Engine } from '../engine/index.ts';
import { UsageError } from './usage.ts';

export const MAP_USAGE = `       refract map <url> [--limit <n>] [--search <text|glob>] [--subdomains] [--sitemap include|only|skip]
                             the site's URLs, one a line, from its sitemaps and the page's links (as GET /map)`;

export async function mapCommand(args: string[], engineFor: () => Promise<Engine>): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      limit: { type: 'string' },
      search: { type: 'string' },
      subdomains: { type: 'boolean' },
      sitemap: { type: 'string' },
    },
  });
  const [url, ...more] = positionals;
  if (!url || more.length) throw new UsageError('map takes one URL, e.g. refract map https://example.com/');
  const [{ mapQuery, mapSite }, { isRefractError }] = await Promise.all([
    import('../crawl/index.ts'),
    import('../engine/index.ts'),
  ]);
  const search = new URLSearchParams({ url });
  for (const name of ['limit', 'search', 'sitemap'] as const)
    if (values[name] !== undefined) search.set(name, values[name]);
  if (values.subdomains) search.set('subdomains', 'true');
  let query: ReturnType<typeof mapQuery>['query'];
  try {
    ({ query } = mapQuery(search));
  } catch (err) {
    throw new UsageError(`${(err as Error).message.replace(/`/g, '')}`);
  }
  const engine = await engineFor();
  try {
    for (const found of await mapSite(engine, query.url, query)) process.stdout.write(`${found}\n`);
    return 0;
  } catch (err) {
    if (!isRefractError(err)) throw err;
    process.stderr.write(`refract: ${err.code}: ${err.message}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}
