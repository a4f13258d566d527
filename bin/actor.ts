// The crawl as an Apify Actor (.actor/actor.json): the input is a `POST /crawls` body, each result line goes to
// the run's default dataset. Locally (no platform), the SDK keeps both in its storage folder.
import { Actor } from 'apify';
import { createEngine } from '../lib/index.ts';
import { crawl } from '../crawl/index.ts';
import { isRefractError, loadConfig } from '../engine/index.ts';
import { jobRequest } from '../crawl/index.ts';

await Actor.init();
const engine = await createEngine({
  config: loadConfig({ ...process.env, REFRACT_LOG_LEVEL: process.env.REFRACT_LOG_LEVEL ?? 'warn' }),
});
let failed: unknown;
try {
  // The same checks as the API's; a webhook is the platform's business (its own integrations), not the Actor's.
  const { webhook: _ignored, ...input } = (await Actor.getInput<Record<string, unknown>>()) ?? {};
  const request = await jobRequest(input, engine, '');
  let pages = 0;
  for await (const line of crawl(engine, request.input, request.options)) {
    await Actor.pushData(line);
    pages++;
  }
  await Actor.setStatusMessage(`${pages} pages crawled`);
} catch (err) {
  failed = err;
}
await engine.close();
// Both end the process: a failed run with the API's code in its status message.
if (failed) await Actor.fail(isRefractError(failed) ? `${failed.code}: ${failed.message}` : (failed as Error).message);
else await Actor.exit();
