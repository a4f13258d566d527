import { loadConfig } from '../engine/index.ts';
import { startApp } from './app.ts';

const config = loadConfig();
const app = await startApp(config);
app.engine.logger.info(`Refract listening: free ${app.freeUrl}, pro ${app.proUrl}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
