import type { Context, Media } from '../../engine/index.ts';
import { candidatesOf, type Doc, type Rule } from './helpers.ts';
import { rankIcons } from './rules/brand.ts';
import { toMedia } from './rules/media.ts';

const MAX_TRIES = 3;

function tooSmall(media: Media): boolean {
  return (media.width !== undefined && media.width <= 2) || (media.height !== undefined && media.height <= 2);
}

/**
 * Settles a media field: probes candidates in rule order and keeps the first that answers as real media of a
 * sensible size. A candidate the network cannot tell about is kept as declared; one an HTTP answer rules out
 * (404, an HTML page, a 1x1 pixel) gives way to the next.
 */
async function settle(candidates: Iterable<Media>, ctx: Context, kind: 'image' | 'video' | 'audio'): Promise<Media | null> {
  // Probe the leading candidates at once and keep the first acceptable in rule order: latency is one probe, not a sum.
  const leading = [...take(candidates, MAX_TRIES)];
  const outcomes = leading.map((c) => ctx.probe(c.url));
  for (const [i, candidate] of leading.entries()) {
    const outcome = await outcomes[i]!;
    if (outcome.status === 'unknown') return candidate;
    if (outcome.status === 'absent') continue;
    if (kind === 'image' && outcome.kind !== 'image') continue;
    const media = { ...candidate, ...outcome.media, url: candidate.url };
    if (kind === 'image' && tooSmall(media)) continue;
    return media;
  }
  return null;
}

function* take<T>(items: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  let i = 0;
  for (const item of items) {
    yield item;
    if (++i >= n) return;
  }
}

function* logoCandidates(doc: Doc, rules: readonly Rule[]): Generator<Media> {
  yield* candidatesOf(doc, rules, toMedia, (m) => m.url);
  for (const href of rankIcons(doc).slice(1)) yield { url: href };
}

/** Settles the media fields of a page with probed facts; the favicon is the logo's last resort. */
export async function completeMedia(doc: Doc, ctx: Context, rules: Record<'image' | 'logo' | 'video' | 'audio', readonly Rule[]>, normalizers: Record<'video' | 'audio', (v: unknown, d: Doc) => Media | undefined>): Promise<Record<'image' | 'logo' | 'video' | 'audio', Media | null>> {
  const logo = async () => {
    const found = await settle(logoCandidates(doc, rules.logo), ctx, 'image');
    if (found) return found;
    const favicon = new URL('/favicon.ico', doc.url).href;
    const outcome = await ctx.probe(favicon);
    return outcome.status === 'ok' && outcome.kind === 'image' ? { ...outcome.media, url: favicon } : null;
  };
  const [imageOut, logoOut, videoOut, audioOut] = await Promise.all([
    settle(candidatesOf(doc, rules.image, toMedia, (m) => m.url), ctx, 'image'),
    logo(),
    ctx.options.video ? settle(candidatesOf(doc, rules.video, normalizers.video, (m) => m.url), ctx, 'video') : null,
    ctx.options.audio ? settle(candidatesOf(doc, rules.audio, normalizers.audio, (m) => m.url), ctx, 'audio') : null,
  ]);
  return { image: imageOut, logo: logoOut, video: videoOut, audio: audioOut };
}
