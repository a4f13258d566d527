import { chains, wappalyzer } from './wappalyzer.ts';
import type { CheerioAPI } from 'cheerio';
import type { Page } from 'playwright-core';
import type { FetchResult } from '../../engine/index.ts';

/** One detected technology, as Microlink reports it. */
export interface Technology {
  name: string;
  slug: string;
  confidence: number;
  version: string | null;
  icon: string;
  website: string;
  categories: { id: number; slug: string; name: string }[];
}

const MAX_SCRIPT_TEXT = 200_000;

function cookiesOf(header: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // Set-Cookie values joined with ", " split where a new "name=" starts (dates contain commas too).
  for (const part of (header ?? '').split(/,(?=\s*[^;,=\s]+=)/)) {
    const m = /^\s*([^=;\s]+)=([^;]*)/.exec(part);
    if (m) (out[m[1]!.toLowerCase()] ??= []).push(m[2]!);
  }
  return out;
}

/** Reads the values of the known global chains in the rendered page (primitives as text, objects as presence). */
async function globalsOf(page: Page): Promise<Record<string, string[]>> {
  const found = await page
    .evaluate((list: string[]) => {
      const out: Record<string, string> = {};
      for (const chain of list) {
        try {
          let value: unknown = window;
          for (const part of chain.split('.')) {
            if (value === null || value === undefined) break;
            value = (value as Record<string, unknown>)[part];
          }
          if (value === undefined || value === null) continue;
          out[chain] =
            typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
        } catch {
          /* a throwing getter is no evidence */
        }
      }
      return out;
    }, chains())
    .catch(() => ({}) as Record<string, string>);
  return Object.fromEntries(Object.entries(found).map(([k, v]) => [k, [v]]));
}

/**
 * Detects technologies from the page's HTML, meta tags, headers, cookies, script URLs and inline scripts and,
 * when the page was rendered, its JavaScript globals.
 */
export async function detectTechnologies(
  response: FetchResult,
  $: CheerioAPI,
  url: string,
  page: Page | undefined,
): Promise<Technology[]> {
  const w = wappalyzer();
  const meta: Record<string, string[]> = {};
  for (const el of $('meta').toArray()) {
    const key = (el.attribs.name ?? el.attribs.property ?? '').toLowerCase();
    if (key && el.attribs.content !== undefined) (meta[key] ??= []).push(el.attribs.content);
  }
  const headers: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(response.headers)) headers[k.toLowerCase()] = [v];
  const scriptSrc: string[] = [];
  const scripts: string[] = [];
  let scriptText = 0;
  for (const el of $('script').toArray()) {
    const src = el.attribs.src;
    if (src) {
      try {
        scriptSrc.push(new URL(src, url).href);
      } catch {
        /* unusable */
      }
    } else if (scriptText < MAX_SCRIPT_TEXT) {
      const text = $(el).text();
      scriptText += text.length;
      scripts.push(text.slice(0, MAX_SCRIPT_TEXT));
    }
  }
  const html = response.text || $.html();
  const detections = w.analyze({
    url,
    html,
    meta,
    headers,
    cookies: cookiesOf(response.headers['set-cookie']),
    scriptSrc: [...new Set(scriptSrc)],
    scripts,
  });
  if (page) {
    const globals = await globalsOf(page);
    for (const tech of w.technologies) if (tech.js) detections.push(...w.analyzeManyToMany(tech, 'js', globals));
  }
  return w.resolve(detections).map((t) => ({
    name: t.name,
    slug: t.slug,
    confidence: t.confidence,
    version: t.version || null,
    icon: t.icon,
    website: t.website,
    categories: t.categories.map(({ id, slug, name }) => ({ id, slug, name })),
  }));
}
