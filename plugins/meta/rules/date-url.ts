// The day a page's address states (`/2017/7/12/slug`, `…-20200113`, `/meldungen/29-10-2021`), as htmldate reads
// it: a CMS writes the day of publishing into the address when the post is first saved, and keeps it.
import type { Doc } from '../../shared/page/helpers.ts';
import { pageAddresses } from '../../shared/normalize/site.ts';

/** Full dates as addresses write them, each as year, month, day (named groups). */
const IN_PATH = [
  /\/(?<y>\d{4})\/(?<m>\d{1,2})\/(?<d>\d{1,2})(?=\/|$|\.html?$)/,
  /(?<![\d])(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})(?!\d)/,
  /(?<![\d])(?<y>\d{4})(?<m>\d{2})(?<d>\d{2})(?![\d])/,
  /(?<![\d-])(?<d>\d{2})-(?<m>\d{2})-(?<y>\d{4})(?![\d-])/,
];

/** A stated day (`YYYY-MM-DD`) if the path holds one that is a real day, not before the web nor after now. */
function dayOf(path: string, now: number): string | undefined {
  for (const pattern of IN_PATH) {
    const g = pattern.exec(path)?.groups;
    if (!g) continue;
    const [y, m, d] = [Number(g.y), Number(g.m), Number(g.d)];
    const day = `${g.y}-${g.m!.padStart(2, '0')}-${g.d!.padStart(2, '0')}`;
    const time = Date.parse(`${day}T00:00:00Z`);
    if (y < 1995 || m < 1 || m > 12 || d < 1 || Number.isNaN(time) || time > now) continue;
    if (new Date(time).getUTCDate() !== d) continue; // 2021-02-30 rolls over: not a day
    return day;
  }
  return undefined;
}

/** The day the page's address states (docs/metadata.md, "date"), or undefined. */
export function dayInAddress(doc: Doc, now = Date.now()): string | undefined {
  for (const address of pageAddresses(doc)) {
    let path: string;
    try {
      path = new URL(address).pathname;
    } catch {
      continue;
    }
    const day = dayOf(decodeURIComponent(path), now);
    if (day) return day;
  }
  return undefined;
}
