import type { CheerioAPI } from 'cheerio';

const MOUNTS = ['#root', '#app', '#__next', '#__nuxt', '#svelte', '#___gatsby', '[data-reactroot]', 'app-root', '[ng-app]', '#q-app'];
const NOSCRIPT_HINT = /enable javascript|requires javascript|javascript (is )?(disabled|required)/i;

/** Why a page does (or does not) need a browser to show its content. */
export interface RenderVerdict { browser: boolean; reason: string }

function visibleText($: CheerioAPI): number {
  const body = $('body').clone();
  body.find('script,style,noscript,template,svg').remove();
  return body.text().replace(/\s+/g, ' ').trim().length;
}

/**
 * Decides from the fetched HTML whether the page builds its content in the browser: an empty mount point of a
 * client framework, a body with scripts and almost no text, a `<noscript>` asking for JavaScript, or custom
 * elements that are still empty. Static pages with text pass without a browser.
 */
export function needsBrowser($: CheerioAPI): RenderVerdict {
  const text = visibleText($);
  const scripts = $('script').length;
  for (const sel of MOUNTS) {
    const el = $(sel).first();
    if (el.length && el.text().trim().length < 20 && el.children().length < 2) return { browser: true, reason: `empty mount point ${sel}` };
  }
  if (text < 200 && NOSCRIPT_HINT.test($('noscript').text())) return { browser: true, reason: 'noscript asks for JavaScript' };
  const custom = $('body *').toArray().filter((el) => 'name' in el && (el as { name: string }).name.includes('-'));
  if (custom.length && text < 200) return { browser: true, reason: `custom elements without content (<${(custom[0] as { name: string }).name}>)` };
  if (scripts > 0 && text < 100) return { browser: true, reason: `only ${text} characters of text beside ${scripts} scripts` };
  return { browser: false, reason: `static: ${text} characters of text` };
}

/** Remembers per host what rendering its pages needed, so later requests skip the guess. */
export class HostMemory {
  readonly #hosts = new Map<string, { browser: number; fetch: number; skipped: number }>();
  readonly #max: number;
  constructor(max = 10_000) { this.#max = max; }
  /** Records what a page of this host needed. */
  record(host: string, browser: boolean): void {
    const entry = this.#hosts.get(host) ?? { browser: 0, fetch: 0, skipped: 0 };
    if (browser) entry.browser++; else entry.fetch = entry.fetch + 1;
    // A static page on a host that was learned as browser-only unlearns it at once.
    if (!browser) entry.browser = 0;
    this.#hosts.delete(host);
    this.#hosts.set(host, entry);
    if (this.#hosts.size > this.#max) this.#hosts.delete(this.#hosts.keys().next().value!);
  }
  /**
   * True once a host's last pages (three or more) all needed a browser; every tenth such request still takes the
   * fetch-and-check path, so a host whose pages became static is relearned.
   */
  prefersBrowser(host: string): boolean {
    const entry = this.#hosts.get(host);
    if (!entry || entry.browser < 3) return false;
    entry.skipped++;
    return entry.skipped % 10 !== 0;
  }
}
