import { load, type CheerioAPI } from 'cheerio';
import type { Page } from 'playwright-core';
import { documentText, parseHtml } from '../kernel/html.ts';
import type { Context } from '../plan/plugin.ts';
import type { Plan } from '../plan/plan.ts';
import type { FetchResult } from '../fetch/http.ts';
import { lightGet } from '../fetch/light.ts';
import { createProber } from '../fetch/probe.ts';
import type { Services } from './extraction.ts';
import { readAsset } from '../store/assets.ts';

/** Where the page of a browser request is: the live page and when it was opened (a video starts there). */
export interface LivePage {
  page: Page;
  openedAt: number;
}

/**
 * The plugin context of one request: the response, the document (parsed on first use, or the one given), the
 * page, and the engine's helpers. Settings and state are per plugin and added by the step runner.
 */
export function contextFor(
  plan: Plan,
  services: Services,
  response: FetchResult,
  signal: AbortSignal,
  live?: LivePage,
  document?: CheerioAPI,
): Context {
  let parsed: CheerioAPI | undefined = document;
  const { assets, guard, agents } = services;
  const memo = new Map<string, unknown>();
  return {
    url: response.url,
    response,
    get $() {
      parsed ??=
        response.kind === 'html' || response.kind === 'text'
          ? parseHtml(documentText(response.text, services.maxDocumentChars), response.url)
          : load('');
      return parsed;
    },
    page: live?.page,
    pageOpenedAt: live?.openedAt,
    // A caller's `filename` names every file this request generates.
    store: (bytes, type) => assets.put(bytes, type, plan.options.filename),
    fetchBytes: async (url, kind) => {
      const res = await lightGet(url, { guard, agents, signal, maxBytes: services.maxBodyBytes }).catch(
        () => undefined,
      );
      if (!res || res.statusCode >= 400 || res.truncated || (kind && res.kind !== kind)) return undefined;
      return res.body;
    },
    // The caller's proxy (and its password) is the engine's business, not a plugin's.
    options: Object.freeze({ ...plan.options, proxy: undefined }),
    probe: createProber({
      guard,
      agents,
      signal,
      timeoutMs: services.probeTimeoutMs,
      memory: services.probes,
      fresh: plan.options.force,
    }),
    signal,
    warn: (message) => services.logger.warn(message, { url: plan.url }),
    data: {},
    // Each step gets its own clock, settings and state in runSteps; outside a step the whole timeout is the bound.
    timeLeft: () => plan.options.timeout,
    guard,
    settings: {},
    state: undefined,
    isAsset: (url) => assets.nameOf(url) !== undefined,
    shared: <T>(key: string, make: () => T): T => {
      if (!memo.has(key)) memo.set(key, make());
      return memo.get(key) as T;
    },
    readAsset: async (url) => {
      const name = assets.nameOf(url);
      return name ? (await readAsset(assets, name))?.bytes : undefined;
    },
  };
}

/** The page's links (absolute http(s), no fragments, each once), for crawls that follow them. */
export function linksOf(ctx: Context): string[] {
  if (ctx.response.kind !== 'html') return [];
  const out = new Set<string>();
  for (const el of ctx.$('a[href]').toArray()) {
    try {
      const url = new URL((el as { attribs: Record<string, string> }).attribs.href!, ctx.url);
      url.hash = '';
      if (url.protocol === 'http:' || url.protocol === 'https:') out.add(url.href);
    } catch {
      /* not a link */
    }
  }
  return [...out];
}
