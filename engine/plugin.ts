import type { CheerioAPI } from 'cheerio';
import type { z } from 'zod';
import type { FetchResult } from './fetch/http.ts';
import type { CoreOptions } from './options.ts';
import type { Prober } from './fetch/probe.ts';

/** What a step consumes: the HTTP response only, the parsed document, or a live browser page. */
export type Need = 'http' | 'html' | 'browser';

/** Ranks needs so that a plan's need is the highest among its steps. */
export const NEED_RANK: Record<Need, number> = { http: 0, html: 1, browser: 2 };

/** The per-request view a plugin's `run` receives; it never sees the raw query. */
export interface Context {
  /** The document's address: the final URL after redirects (or the declared address in test hook mode). */
  url: string;
  /** The target's response: status, headers, redirect chain, body bytes and decoded text. */
  response: FetchResult;
  /** The parsed document (for `html` and `browser` needs). */
  $: CheerioAPI;
  /** The request's general options (timeout, headers, prerender...), read-only. */
  options: Readonly<CoreOptions>;
  /** Probes a media URL (ranged read through the SSRF guard, once per URL per request). */
  probe: Prober;
  /** Aborted when the request's time budget runs out. */
  signal: AbortSignal;
  /** Records a non-fatal problem; it is logged and does not fail the request. */
  warn(message: string): void;
}

/** A plugin as authors write it: one query parameter, its options schema, what it needs, and its work. */
export interface PluginDefinition<S extends z.ZodType = z.ZodType> {
  /** Its query parameter, folder, and key under `data`. */
  name: string;
  /** One sentence that says what it adds. */
  description: string;
  /** What the step consumes. */
  needs: Need;
  /** Schema of its options (`name.option=value`), with defaults. */
  params: S;
  /** On without being asked for (as `meta` is). */
  defaultOn?: boolean;
  /** Spread the result into `data` instead of placing it under `data[name]` (as `meta` does). */
  merge?: boolean;
  /** Turns a plain text value (`name=word`) into options; without it such a value is refused. */
  shorthand?: (value: string) => Record<string, unknown>;
  /** Does the work; returns JSON-ready data or null. */
  run(ctx: Context, options: z.output<S>): unknown;
}

/** A registered plugin (same shape, frozen). */
export type Plugin = Readonly<PluginDefinition>;

const NAME = /^[a-z][a-zA-Z0-9]*$/;

/** Declares a plugin; checks its shape at once so a broken plugin fails at load time, not at request time. */
export function definePlugin<S extends z.ZodType>(definition: PluginDefinition<S>): Plugin {
  if (!definition || typeof definition !== 'object') throw new TypeError('definePlugin expects an object');
  if (typeof definition.name !== 'string' || !NAME.test(definition.name)) {
    throw new TypeError(`Plugin name must be a camelCase word, got ${JSON.stringify(definition.name)}`);
  }
  if (!['http', 'html', 'browser'].includes(definition.needs)) {
    throw new TypeError(`Plugin "${definition.name}": needs must be http, html or browser`);
  }
  if (typeof definition.run !== 'function') throw new TypeError(`Plugin "${definition.name}": run must be a function`);
  if (!definition.params || typeof (definition.params as z.ZodType).safeParse !== 'function') {
    throw new TypeError(`Plugin "${definition.name}": params must be a schema (use options({...}))`);
  }
  return Object.freeze({ ...definition }) as Plugin;
}
