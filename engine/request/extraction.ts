import type { Registry } from '../plan/registry.ts';
import type { Guard } from '../fetch/guard.ts';
import type { FetchResult } from '../fetch/http.ts';
import type { LightAgents } from '../fetch/light.ts';
import type { HostMemory } from '../fetch/prerender.ts';
import type { AssetStore } from '../store/assets.ts';
import type { Browsers } from '../browser/browsers.ts';
import type { Adblock } from '../browser/adblock.ts';
import type { ProxyChooser } from './proxies.ts';
import type { ProbeMemory } from '../fetch/probe.ts';
import type { PluginSettings } from '../plan/plugin.ts';
import type { Phase } from '../kernel/timing.ts';

/** Why a step produced no output, as the answer's `warnings` report it. */
export interface Warning {
  plugin: string;
  code: string;
  message: string;
  reason?: 'threw' | 'timeout' | 'not-json';
}

/** The outcome of a plan: the Data object and how it was obtained. */
export interface Extraction {
  data: Record<string, unknown>;
  fetchMode: string;
  fetchTimeMs: number;
  prerenderReason?: string;
  /** The page's links, when the plan asked for them (crawls). */
  links?: string[];
  warnings: Warning[];
  /** How long each phase of the run took (reported in Server-Timing, never stored in the cache). */
  phases?: Phase[];
}

/** What each plugin of an engine gets besides the request: its declared settings and what its `init` made. */
export interface PluginRuntime {
  settings: Readonly<Partial<PluginSettings>>;
  state: unknown;
}

/** What running a plan needs besides the plan: the engine's parts, none of its secrets. */
export interface Services {
  registry: Registry;
  /** Per plugin name: its settings and state in this engine. */
  runtimes: ReadonlyMap<string, PluginRuntime>;
  guard: Guard;
  agents: LightAgents;
  maxBodyBytes: number;
  /** The part of an HTML body that is parsed (characters). */
  maxDocumentChars: number;
  probeTimeoutMs: number;
  prerenderBudgetMs: number;
  browsers: Browsers;
  /** Ad and tracker filters and the cookie-banner handler, loaded once per engine. */
  adblock: Adblock;
  assets: AssetStore;
  hosts: HostMemory;
  /** Media facts probed lately, by URL (a site's logo and favicon are probed once, not on each of its pages). */
  probes: ProbeMemory;
  /** The proxy of each request (the caller's, a country's pool, or the rotation) and the one to retry through. */
  proxies: ProxyChooser;
  logger: { warn(msg: string, extra?: unknown): void; error(msg: string, extra?: unknown): void };
}

/** Completes the Data object with the facts of the response (status, headers, redirects, final URL). */
export function finish(data: Record<string, unknown>, response: FetchResult): Record<string, unknown> {
  data.url ??= response.url;
  data.statusCode = response.statusCode;
  data.headers = response.headers;
  data.redirects = response.redirects;
  return data;
}

/** A stored response: the extraction (Data and how it was obtained) with its lifetime. */
export interface CacheEntry extends Extraction {
  createdAt: number;
  expiresAt: number;
  /** Set on a remembered failure: the error the extraction ended with (answered again until it expires). */
  failure?: { code: string; message: string; data?: unknown };
}
