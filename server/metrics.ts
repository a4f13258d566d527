import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServiceEngine as Engine } from '../engine/index.ts';

/** What one answered request tells the metrics and the access log. */
export interface RequestRecord {
  endpoint: 'free' | 'pro' | 'health' | 'metrics' | 'assets' | 'docs';
  status: number;
  /** The requested output: the plan's first step that is not `meta` (or `meta`), `embed`, or `none` before a plan. */
  output: string;
  /** Cache state (HIT, MISS, STALE, BYPASS) when the request reached the cache. */
  cache?: string;
  /** How the target was read (fetch, prerender...) when it was. */
  fetchMode?: string;
  seconds: number;
}

/** The service's Prometheus metrics, in a registry of its own (never the process-wide default one). */
export interface Metrics {
  record(r: RequestRecord): void;
  /** Prometheus text exposition, gauges read at the moment of the scrape. */
  scrape(): Promise<{ type: string; body: string }>;
}

export function createMetrics(engine: Engine, inflight: () => number): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'refract_' });
  const requests = new Counter({
    name: 'refract_requests_total',
    help: 'Requests answered, by endpoint, requested output and HTTP status',
    labelNames: ['endpoint', 'output', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'refract_request_duration_seconds',
    help: 'Time to answer a request, by endpoint, requested output and cache state',
    labelNames: ['endpoint', 'output', 'cache'],
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'refract_cache_total',
    help: 'Answers by cache state (HIT, MISS, STALE, BYPASS)',
    labelNames: ['state'],
    registers: [registry],
  });
  const fetches = new Counter({
    name: 'refract_fetch_total',
    help: 'Targets read, by fetch mode',
    labelNames: ['mode'],
    registers: [registry],
  });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  // A count kept elsewhere (the browser pool, the Redis link), exposed as a counter: it only grows.
  const counted = (name: string, help: string, read: () => number) => {
    let seen = 0;
    return new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read();
        if (now > seen) this.inc(now - seen);
        seen = Math.max(seen, now);
      },
    });
  };
  gauge('refract_inflight_requests', 'Requests being answered now', inflight);
  gauge('refract_browsers', 'Chromium browsers open', () => engine.browsers.stats().open);
  gauge(
    'refract_browser_contexts',
    'Browser contexts open (each holds one page, or the pages of a crawl)',
    () => engine.browsers.stats().contexts,
  );
  counted(
    'refract_browser_launches_total',
    'Chromium browsers launched (beyond the first: restarts after a crash, retirement or memory ceiling)',
    () => engine.browsers.stats().launched,
  );
  counted(
    'refract_browser_pages_reused_total',
    'Requests served by a page used again',
    () => engine.browsers.stats().reused,
  );
  gauge('refract_browser_pages', 'Browser pages serving a request now', () => engine.browsers.stats().pages);
  gauge('refract_browser_queue', 'Requests waiting for a browser page', () => engine.browsers.stats().queued);
  new Gauge({
    name: 'refract_browser_endpoint_up',
    help: 'Each node of the browser tier: 1 when up, 0 when down or being tried again after a failure',
    labelNames: ['endpoint'],
    registers: [registry],
    collect() {
      for (const e of engine.browsers.endpoints()) this.set({ endpoint: e.endpoint }, e.state === 'up' ? 1 : 0);
    },
  });
  gauge('refract_redis_up', '1 while Redis answers (or is not configured), 0 while it is unreachable', () =>
    engine.shared.healthy() ? 1 : 0,
  );
  counted('refract_redis_errors_total', 'Redis operations that failed and were answered by their fallback', () =>
    engine.shared.errors(),
  );
  const kinds = new Map<
    string,
    { requests: { inc(): void }; latency: { observe(v: number): void }; cache?: { inc(): void } }
  >();
  return {
    record(r) {
      // The labelled series of a kind of request, found once: prom-client hashes label objects on every call.
      const key = `${r.endpoint}\u0000${r.output}\u0000${r.status}\u0000${r.cache ?? 'none'}`;
      let series = kinds.get(key);
      if (!series) {
        series = {
          requests: requests.labels(r.endpoint, r.output, String(r.status)),
          latency: latency.labels(r.endpoint, r.output, r.cache ?? 'none'),
          cache: r.cache ? cache.labels(r.cache) : undefined,
        };
        if (kinds.size < 10_000) kinds.set(key, series);
      }
      series.requests.inc();
      series.latency.observe(r.seconds);
      series.cache?.inc();
      if (r.fetchMode && r.fetchMode !== 'none' && r.cache && r.cache !== 'HIT') fetches.inc({ mode: r.fetchMode });
    },
    async scrape() {
      return { type: registry.contentType, body: await registry.metrics() };
    },
  };
}
