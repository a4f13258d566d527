import type { Context, Media } from '../../engine/index.ts';
import { candidatesOf, type Doc, type Rule } from './helpers.ts';
import { rankIcons } from './rules/brand.ts';
import { toMedia } from './rules/media.ts';

const MAX_TRIES = 4;

function tooSmall(media: Media): boolean {
  return (media.width !== undefined && media.width <= 2) || (media.height !== undefined && media.height <= 2);
}

/**
 * Settles a media field: probes candidates in rule order and keeps the first that answers as real media of a
 * sensible size. A candidate the network cannot tell about is kept as declared; one an HTTP answer rules out
 * (404, an HTML page, a 1x1 pixel) gives way to the next.
 */
async function settle(candidates: Iterable<Media>, ctx: Context, kind: 'image' | 'video' | 'audio'): Promise<Media | null> {
  let tries = 0;
  for (const candidate of candidates) {
    if (tries++ >= MAX_TRIES || ctx.signal.aborted) break;
    const outcome = await ctx.probe(candidate.url);
    if (outcome.status === 'unknown') return candidate;
    if (outcome.status === 'absent') continue;
    if (kind === 'image' && outcome.kind !== 'image') continue;
    const media = { ...candidate, ...outcome.media, url: candidate.url };
    if (kind === 'image' && tooSmall(media)) continue;
    return media;
  }
  return null;
}

function* logoCandidates(doc: Doc, rules: readonly Rule[]): Generator<Media> {
  yield* candidatesOf(doc, rules, toMedia, (m) => m.url);
  for (const href of rankIcons(doc).slice(1)) yield { url: href };
}

/** Completes the media fields of a metadata result with probed facts; the favicon is the logo's last resort. */
export async function completeMedia(out: Record<string, unknown>, doc: Doc, ctx: Context, rules: Record<'image' | 'logo' | 'video' | 'audio', readonly Rule[]>, normalizers: Record<'video' | 'audio', (v: unknown, d: Doc) => Media | undefined>): Promise<void> {
  const jobs: Promise<void>[] = [
    settle(candidatesOf(doc, rules.image, toMedia, (m) => m.url), ctx, 'image').then((m) => { out.image = m; }),
    (async () => {
      let logo = await settle(logoCandidates(doc, rules.logo), ctx, 'image');
      if (!logo) {
        const favicon = new URL('/favicon.ico', doc.url).href;
        const outcome = await ctx.probe(favicon);
        if (outcome.status === 'ok' && outcome.kind === 'image') logo = { ...outcome.media, url: favicon };
      }
      out.logo = logo;
    })(),
  ];
  if (out.video !== null || ctx.options.video) {
    jobs.push(settle(candidatesOf(doc, rules.video, normalizers.video, (m) => m.url), ctx, 'video').then((m) => { out.video = ctx.options.video ? m : null; }));
  }
  if (ctx.options.audio) {
    jobs.push(settle(candidatesOf(doc, rules.audio, normalizers.audio, (m) => m.url), ctx, 'audio').then((m) => { out.audio = m; }));
  }
  await Promise.all(jobs);
}
