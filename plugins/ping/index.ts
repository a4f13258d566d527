import { definePlugin, z, bool, type Context, type Media } from '../../engine/index.ts';

function isMedia(value: unknown): value is Media {
  return !!value && typeof value === 'object' && typeof (value as Media).url === 'string';
}

/** `ping=true` checks every field; `ping.image=false` (or `ping.logo=true` alone) chooses per field. */
const params = z.preprocess(
  (v) => (v === undefined ? {} : v),
  z.record(z.string(), bool().describe('Check (true) or skip (false) this media field, such as `ping.image`.'), {
    error: 'expected true, false or one flag per field such as ping.image=false',
  }),
);

function wanted(field: string, choice: Record<string, boolean>): boolean {
  const flags = Object.values(choice);
  // Only fields turned on were named: check those alone. Otherwise every field but those turned off.
  if (flags.length && flags.every(Boolean)) return choice[field] === true;
  return choice[field] !== false;
}

async function reachable(ctx: Context, url: string): Promise<boolean> {
  const outcome = await ctx.probe(url);
  if (outcome.status === 'ok') return true;
  if (outcome.status === 'unknown' && ctx.settings.probeTimeoutMs === 0) {
    ctx.warn('ping cannot check URLs while media probing is off (REFRACT_PROBE_TIMEOUT=0); they are kept');
    return true;
  }
  // An error status, a page where media was announced, a refused connection or a probe past its time.
  return false;
}

/** Checks that the payload's media URLs answer (sharing the request's media probes) and drops those that do not. */
export default definePlugin({
  name: 'ping',
  description: 'Checks that the media URLs of the payload are reachable and sets unreachable ones to null.',
  needs: 'http',
  enriches: true,
  settings: ['probeTimeoutMs'],
  params,
  async run(ctx, choice) {
    const checks = Object.entries(ctx.data)
      // Files this service generated (screenshots, PDFs) are reachable by construction.
      .filter(([field, value]) => isMedia(value) && wanted(field, choice) && !ctx.isAsset((value as Media).url))
      .map(async ([field, value]) => ({ field, ok: await reachable(ctx, (value as Media).url) }));
    // Unreachable fields are answered null (the engine applies it; the payload is not changed here).
    return Object.fromEntries((await Promise.all(checks)).filter((c) => !c.ok).map((c) => [c.field, null]));
  },
});
