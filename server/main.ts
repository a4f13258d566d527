import { loadConfig } from '../engine/index.ts';
import { startApp } from './app.ts';

const config = loadConfig();
const app = await startApp(config);
app.engine.logger.info(`Refract listening: free ${app.freeUrl}, pro ${app.proUrl}`);

// A promise left rejecting by a dependency (a browser page closed under a pending call, say) is a defect to log,
// never a reason to drop every request in flight with the process.
process.on('unhandledRejection', (err) => app.engine.logger.error('unhandled rejection', err));

const SHUTDOWN_GRACE_MS = 10_000;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // A shutdown that cannot finish (a hung socket, a stuck browser) must still end the process.
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
