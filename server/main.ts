import { isRefractError, loadConfig } from '../engine/index.ts';
import { startApp } from './app.ts';
import { logRejections } from './rejections.ts';

/** A start that fails for a reason of the operator's (a setting, a plugin) says so in one line; a defect shows its stack. */
async function start() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    // A setting that does not parse: the message names it.
    process.stderr.write(`refract: ${(err as Error).message}\n`);
    process.exit(1);
  }
  try {
    return { config, app: await startApp(config) };
  } catch (err) {
    process.stderr.write(
      isRefractError(err)
        ? `refract: ${err.code}: ${err.message}\n`
        : `refract: the server did not start: ${(err as Error)?.stack ?? String(err)}\n`,
    );
    process.exit(1);
  }
}
const { config, app } = await start();
app.engine.logger.info(
  `Refract listening on ${app.bound.free} (free) and ${app.bound.pro} (pro): free ${app.freeUrl}, pro ${app.proUrl}`,
);

// A promise left rejecting by a dependency is a defect to log, never a reason to drop every request in flight.
logRejections(app.engine.logger);

/** How long closing the engine (browsers, Redis) may take after the grace period before the process ends anyway. */
const CLOSE_MS = 10_000;

// SIGTERM drains: readiness false, no new connections, requests in flight finish within the grace period. A second
// signal does not cut the drain short: a SIGTERM to the process group (Ctrl+C, `kill -- -PGID`, many supervisors)
// reaches the server and npm both, and npm passes its own on; the hard exit below still bounds the whole.
let draining = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (draining) {
      app.engine.logger.info(`${signal}: already draining`);
      return;
    }
    draining = true;
    app.engine.logger.info(`${signal}: draining for up to ${config.shutdownGraceMs} ms`);
    // A shutdown that cannot finish (a hung socket, a stuck browser) must still end the process.
    setTimeout(() => process.exit(1), config.shutdownGraceMs + CLOSE_MS).unref();
    app.shutdown(config.shutdownGraceMs).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

// Started by npm's own shell (`npx refract-api serve`), a SIGTERM to npm ends that shell and leaves this process
// behind, listening, with a new parent: then a change of parent is taken as the SIGTERM it was. A server started by a
// script or a shell of the operator's outlives it (REFRACT_EXIT_WITH_PARENT says otherwise).
const watch = config.exitWithParent === 'on' || (config.exitWithParent === 'npm' && !!process.env.npm_command);
const parent = process.ppid;
if (watch)
  setInterval(() => {
    if (process.ppid !== parent) {
      app.engine.logger.info(`the parent process ${parent} ended: stopping as on SIGTERM`);
      process.kill(process.pid, 'SIGTERM');
    }
  }, 1000).unref();
