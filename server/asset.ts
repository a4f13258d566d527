import type { ServiceEngine as Engine } from '../engine/index.ts';
import { RefractError } from '../engine/index.ts';
import { withDeadline, fetchTarget, readAsset } from '../engine/index.ts';

/** Fetches the bytes of a URL from the payload (for `embed`), through the same guard as every other fetch. */
export async function fetchAsset(url: string, engine: Engine): Promise<{ contentType: string; body: Buffer }> {
  // Generated assets are read from the store, not fetched back over HTTP.
  const name = engine.assets.nameOf(url);
  if (name) {
    const asset = await readAsset(engine.assets, name);
    if (!asset) throw new RefractError('EFATAL', `The asset ${name} is missing from the store`);
    return { contentType: asset.contentType, body: asset.bytes };
  }
  const res = await withDeadline(engine.config.timeoutMs, [], (signal) =>
    fetchTarget(url, { guard: engine.guard, signal, maxBytes: engine.config.maxBodyBytes, full: true }),
  );
  if (res.statusCode >= 400)
    throw new RefractError('EFATALCLIENT', `The embedded asset ${url} answered ${res.statusCode}`);
  return { contentType: res.contentType || 'application/octet-stream', body: res.body };
}
