import { loadConfig } from '../engine/index.ts';
import { startApp } from './app.ts';

const config = loadConfig();
const app = await startApp(config);
app.engine.logger.info(`Refract listening on ${app.bound.free} (free) and ${app.bound.pro} (pro): free ${app.freeUrl}, pro ${app.proUrl}`);

// A promise left rejecting by a dependency (a browser page closed under a pending call, say) is a defect to log,
// never a reason to drop every request in flight with the process.
process.on('unhandledRejection', (err) => app.engine.logger.error('unhandled rejection', err));

/** How long closing the engine (browsers, Redis) may take after the grace period before the process ends anyway. */
const CLOSE_MS = 10_000;

// SIGTERM drains: readiness false, no new connections, requests in flight finish within the grace period. A second
// signal ends the process at once (the handlers are gone: the default action applies).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.engine.logger.info(`${signal}: draining for up to ${config.shutdownGraceMs} ms`);
    // A shutdown that cannot finish (a hung socket, a stuck browser) must still end the process.
    setTimeout(() => process.exit(1), config.shutdownGraceMs + CLOSE_MS).unref();
    app.shutdown(config.shutdownGraceMs).then(() => process.exit(0), () => process.exit(1));
  });
}
