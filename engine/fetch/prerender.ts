import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';

// Where client frameworks mount: these ids, these attributes, this element name.
const MOUNT_IDS = new Set(['root', 'app', '__next', '__nuxt', 'svelte', '___gatsby', 'q-app']);
const MOUNT_ATTRIBUTES = ['data-reactroot', 'ng-app'];
const MOUNT_NAME = 'app-root';
const NOSCRIPT_HINT = /enable javascript|requires javascript|javascript (is )?(disabled|required)/i;

/** Why a page does (or does not) need a browser to show its content. */
export interface RenderVerdict {
  browser: boolean;
  reason: string;
}

const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);

/** Counts visible text under the body up to `enough` characters, walking the tree without copying it. */
function visibleText($: CheerioAPI, enough = 500): number {
  let count = 0;
  const walk = (nodes: AnyNode[]): void => {
    for (const node of nodes) {
      if (count >= enough) return;
      if (node.type === 'text') count += (node as Text).data.trim().length;
      else if ('children' in node && !HIDDEN.has((node as Element).name)) walk((node as Element).children);
    }
  };
  walk(bodyOf($));
  return count;
}

/** The `<body>` element, reached from the root without a selector engine (the parser always makes one). */
function bodyOf($: CheerioAPI): AnyNode[] {
  for (const top of $.root().toArray()[0]?.children ?? []) {
    if (top.type !== 'tag') continue;
    if (top.name === 'body') return [top];
    if (top.name === 'html') {
      const body = top.children.find((n) => n.type === 'tag' && (n as Element).name === 'body');
      if (body) return [body];
    }
  }
  return $('body').toArray();
}

function isMount(el: Element): boolean {
  return el.name === MOUNT_NAME || MOUNT_IDS.has(el.attribs.id ?? '') || MOUNT_ATTRIBUTES.some((a) => a in el.attribs);
}

/** The framework mount points of the document, found in one walk of the tree (no selector engine). */
function mountsOf($: CheerioAPI): Element[] {
  const found: Element[] = [];
  const walk = (nodes: AnyNode[]): void => {
    for (const node of nodes) {
      // Scripts and styles are their own node types in domhandler, so only elements (and the root) are entered.
      if (node.type !== 'tag' && node.type !== 'root') continue;
      if (node.type === 'tag' && isMount(node as Element)) found.push(node as Element);
      walk((node as Element).children);
    }
  };
  walk($.root().toArray());
  return found;
}

/**
 * Decides from the fetched HTML whether the page builds its content in the browser: an empty mount point of a
 * client framework, a body with scripts and almost no text, a `<noscript>` asking for JavaScript, or custom
 * elements that are still empty. Static pages with text pass without a browser.
 */
export function needsBrowser($: CheerioAPI): RenderVerdict {
  const text = visibleText($);
  for (const node of mountsOf($)) {
    const el = $(node);
    if (el.text().trim().length < 20 && el.children().length < 2) {
      const id = el.attr('id');
      return { browser: true, reason: `empty mount point ${id ? `#${id}` : `<${(node as Element).name}>`}` };
    }
  }
  if (text < 200 && NOSCRIPT_HINT.test($('noscript').text()))
    return { browser: true, reason: 'noscript asks for JavaScript' };
  const custom =
    text < 200
      ? $('body *')
          .toArray()
          .filter((el) => 'name' in el && (el as { name: string }).name.includes('-'))
      : [];
  if (custom.length)
    return { browser: true, reason: `custom elements without content (<${(custom[0] as { name: string }).name}>)` };
  if (text < 100) {
    const scripts = $('script').length;
    if (scripts > 0) return { browser: true, reason: `only ${text} characters of text beside ${scripts} scripts` };
  }
  return { browser: false, reason: `static: ${text >= 500 ? 'at least 500' : text} characters of text` };
}

/** Remembers per host what rendering its pages needed, so later requests skip the guess. */
export class HostMemory {
  readonly #hosts = new Map<string, { browser: number; fetch: number; skipped: number }>();
  readonly #max: number;
  constructor(max = 10_000) {
    this.#max = max;
  }
  /** Records what a page of this host needed. */
  record(host: string, browser: boolean): void {
    const entry = this.#hosts.get(host) ?? { browser: 0, fetch: 0, skipped: 0 };
    if (browser) entry.browser++;
    else entry.fetch = entry.fetch + 1;
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
