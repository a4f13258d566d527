// The server: the engine and its two endpoints (free and pro), each path's route (routes.ts) registered for each,
// answered by respond.ts over connections.ts; graceful shutdown.
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import pTimeout from 'p-timeout';
import {
  createEngine,
  VERSION,
  type Config,
  type Plugin,
  type ServiceEngine as Engine,
  systemClock,
  type Clock,
} from '../engine/index.ts';
import { enginePlugins } from '../lib/compose.ts';
import { createWeb } from './reference/web.ts';
import { openApiDocument } from './reference/openapi.ts';
import { createHandler } from './handler.ts';
import { failure } from './jsend.ts';
import { errorsPage } from './reference/errors-page.ts';
import { createQuota, type QuotaPolicy } from './quota.ts';
import { createKeyRing } from './keys.ts';
import { createMetrics } from './metrics.ts';
import { trustOf } from './client-ip.ts';
import { serveOwn, type AppState, type OwnPages } from './own.ts';
import { createJobs, createMonitors, createRedisJobs, createRedisMonitors } from '../crawl/index.ts';
import { createCrawlsHandler } from './crawls.ts';
import { createMonitorsHandler } from './monitors.ts';
import { createMapHandler } from './map.ts';
import { createMcpRoute } from './mcp/http.ts';
import { answerOf, type Asked } from './routes.ts';
import { answerClientError, bound, listen, MAX_HEAD_BYTES } from './connections.ts';
import { respond, starting } from './respond.ts';
import type { OpenApiDocument } from './mcp/backend.ts';

/** A running Refract: the engine and its free and pro endpoints. */
export interface App {
  engine: Engine;
  freeUrl: string;
  proUrl: string;
  /** The addresses the endpoints listen on, as bound (`0.0.0.0:3000` with the default HOST). */
  bound: { free: string; pro: string };
  /** Background events: `refresh` ({ url, ok }) when a stale cache entry was regenerated. */
  events: EventEmitter;
  /**
   * Graceful stop (SIGTERM): readiness turns false, the listeners close (new connections are refused), requests in
   * flight finish for up to `graceMs`, then the rest is cut and the engine (browsers, Redis) closes.
   */
  shutdown(graceMs: number): Promise<void>;
  /** Stops at once: connections are cut, then the engine closes. */
  close(): Promise<void>;
}

/** Starts the engine and both endpoints; extra plugins come after the built-in ones and those named in config. */
export async function startApp(
  baseConfig: Config,
  extraPlugins: readonly Plugin[] = [],
  opts: { clock?: Clock } = {},
): Promise<App> {
  const clock = opts.clock ?? systemClock;
  // Loaded before anything listens, so that a plugin that does not load fails the start with nothing left open.
  const plugins = await enginePlugins(baseConfig, extraPlugins);
  const state: AppState = {
    routes: {},
    docsUrl: '',
    draining: false,
    inflight: 0,
    unanswered: new Set(),
    trust: trustOf(baseConfig.trustProxy),
    reportUrl: baseConfig.reportUrl,
  };
  const errorsDoc = await readFile(new URL('../docs/errors.md', import.meta.url));
  let proUrl = '';
  const describe = () =>
    openApiDocument(state.engine!.registry, {
      version: VERSION,
      freeUrl: state.engine!.config.publicUrl,
      proUrl,
      docsUrl: state.docsUrl,
      testHooks: state.engine!.config.testHooks,
    });
  const web = await createWeb(describe);
  const own: OwnPages = { web, errorsDoc, errorsHtml: errorsPage(errorsDoc.toString('utf8')) };
  // The server's own pages answer from the start (health while the engine starts); a path that is none of them is
  // the API's to answer (its 404).
  state.routes.own = (['free', 'pro'] as const).map(
    (endpoint, i) => async (asked: Asked) =>
      (await serveOwn(state, own, asked.req, asked.path, endpoint)) ?? state.routes.api?.[i]?.(asked) ?? starting(),
  );
  const servers = (['free', 'pro'] as const).map((endpoint, i) => {
    // Node checks header and request deadlines on this interval (30 s by default: sockets lived up to 30 s past them).
    const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES, connectionsCheckingInterval: 1000 }, (req, res) =>
      respond(state, endpoint, i, req, res),
    );
    server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) =>
      answerClientError(err, socket, state.docsUrl),
    );
    bound(server, baseConfig);
    return server;
  });
  const free = await listen(servers[0]!, baseConfig.port, baseConfig.host);
  const freeUrl = free.url;
  const docsUrl = (state.docsUrl = `${baseConfig.publicUrl || freeUrl}/docs/errors`);
  const pro = await listen(servers[1]!, baseConfig.proPort, baseConfig.host);
  proUrl = pro.url;
  const config = { ...baseConfig, publicUrl: baseConfig.publicUrl || freeUrl };
  const ready = (state.engine = await createEngine({ config, plugins, clock }));
  // The quotas count in the engine's shared state: Redis when REDIS_URL is set, so processes share them.
  const quota = createQuota(ready.shared.counters, clock);
  const keys = createKeyRing(config.apiKeys);
  state.metrics = createMetrics(ready, () => state.inflight);
  // With Redis, jobs are shared by every API process and their pages by every worker; otherwise they run here.
  // A job's pages count against its owner's quota, as the server keeps it.
  const charge = (owner: string, policy: QuotaPolicy) => quota.consume(owner, policy);
  const jobs = config.redisUrl
    ? await createRedisJobs({
        engine: ready,
        charge,
        redisUrl: config.redisUrl,
        webhookSecret: config.webhookSecret,
        pages: config.crawlPages,
      })
    : createJobs({ engine: ready, charge, dataDir: config.dataDir, webhookSecret: config.webhookSecret });
  const crawls = (['free', 'pro'] as const).map((tier) =>
    createCrawlsHandler({ engine: ready, jobs, keys, tier, docsUrl, webhookSecret: config.webhookSecret }),
  );
  // Monitors: in Redis, read by every process (one read a tick: BullMQ's job schedulers); else in the data folder.
  const monitorOptions = {
    engine: ready,
    dir: path.join(config.dataDir, 'monitors'),
    clock,
    webhookSecret: config.webhookSecret,
    perKey: config.monitorsPerKey,
    historyMax: config.monitorHistory,
    historyAgeMs: config.monitorHistoryAge,
    charge,
  };
  const monitors = config.redisUrl
    ? await createRedisMonitors({ ...monitorOptions, redisUrl: config.redisUrl })
    : await createMonitors(monitorOptions);
  const monitorRoutes = (['free', 'pro'] as const).map((tier) =>
    createMonitorsHandler({ engine: ready, monitors, keys, tier, docsUrl, webhookSecret: config.webhookSecret }),
  );
  const maps = (['free', 'pro'] as const).map((tier) =>
    createMapHandler({ engine: ready, quota, tier, keys, docsUrl }),
  );
  const handlers = (['free', 'pro'] as const).map((tier) =>
    createHandler({ engine: ready, quota, tier, keys, docsUrl, clock }),
  );
  // The routes (routes.ts), each as the router calls it.
  const asRequest = ({ req, url, ip }: Asked) => ({ method: req.method ?? 'GET', url, headers: req.headers, ip });
  state.routes.crawls = crawls.map((h) => (asked: Asked) => h(asked.req, asked.path));
  state.routes.monitors = monitorRoutes.map((h) => (asked: Asked) => h(asked.req, asked.path));
  state.routes.map = maps.map((h) => (asked: Asked) => h(asRequest(asked)));
  state.routes.api = handlers.map((h) => (asked: Asked) => h(asRequest(asked)));
  // The MCP tools call the routes above through the router, as the endpoint's own requests (server/mcp/http.ts).
  let description: Record<string, unknown> | undefined;
  state.mcp = ([0, 1] as const).map((i) =>
    createMcpRoute({
      engine: ready,
      keys,
      tier: i === 0 ? 'free' : 'pro',
      route: (asked) => answerOf(state.routes, i, asked) ?? Promise.resolve(starting()),
      openApi: () => (description ??= describe()) as unknown as OpenApiDocument,
      refuse: (err) => {
        const { status, body } = failure(err, randomUUID(), docsUrl, config.reportUrl);
        return { status, body: JSON.stringify(body) };
      },
    }),
  );
  // Jobs a stopped process left unfinished go on from where their journals say.
  const resumed = await jobs.resume();
  if (resumed) ready.logger.info(`resumed ${resumed} crawl job(s)`);
  return {
    engine: ready,
    events: ready.events,
    freeUrl,
    proUrl,
    bound: { free: free.bound, pro: pro.bound },
    async shutdown(graceMs) {
      state.draining = true;
      // No new connections; idle keep-alive ones close now, busy ones after their answer (`connection: close`).
      const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      for (const s of servers) s.closeIdleConnections();
      const settled = new Promise<void>((resolve) => {
        state.settled = resolve;
        if (state.inflight === 0) resolve();
      });
      await pTimeout(settled, { milliseconds: graceMs, message: false });
      // Requests still running at the end of the grace get an answer (503 EBUSY) before their connections close.
      for (const cut of [...state.unanswered]) cut();
      for (const s of servers) s.closeAllConnections();
      await Promise.all(closed);
      // Side by side: each bounds its queue's close (4 s with Redis away), and one after the other they took 9 s.
      await Promise.all([monitors.close(), jobs.close()]);
      await ready.close();
      ready.logger.flush();
    },
    async close() {
      state.draining = true;
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      // Side by side: each bounds its queue's close (4 s with Redis away), and one after the other they took 9 s.
      await Promise.all([monitors.close(), jobs.close()]);
      await ready.close();
      ready.logger.flush();
    },
  };
}
