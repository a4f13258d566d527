import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FiltersEngine, Request } from '@ghostery/adblocker';
import { createConsent, type Consent } from './consent.ts';

const require = createRequire(import.meta.url);

/** The ad and tracker filter engine, from the tracker database that ships inside `@ghostery/trackerdb` (no download). */
function loadFilters(): FiltersEngine {
  const dist = path.resolve(path.dirname(require.resolve('@ghostery/trackerdb')), '..');
  return FiltersEngine.parse(readFileSync(path.join(dist, 'trackerdb.txt'), 'utf8'));
}

const TYPES: Record<string, string> = {
  document: 'sub_frame',
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  xhr: 'xhr',
  fetch: 'xhr',
  websocket: 'websocket',
  ping: 'ping',
  other: 'other',
};

/** An engine's ad blocker and cookie-banner handler; filters and rules load on first use, once per engine. */
export interface Adblock extends Consent {
  /** True when an ad or tracker filter matches this subrequest of the page. */
  isBlocked(url: string, resourceType: string, pageUrl: string): boolean;
}

export function createAdblock(): Adblock {
  let filters: FiltersEngine | undefined;
  return {
    ...createConsent(),
    isBlocked(url, resourceType, pageUrl) {
      if (resourceType === 'document' && url === pageUrl) return false;
      filters ??= loadFilters();
      return filters.match(
        Request.fromRawDetails({ url, sourceUrl: pageUrl, type: (TYPES[resourceType] ?? 'other') as never }),
      ).match;
    },
  };
}
