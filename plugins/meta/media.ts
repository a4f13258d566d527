import type { Context, Media, ProbeOutcome } from '../../engine/index.ts';
import { candidatesOf, type Doc, type Rule } from '../shared/page/helpers.ts';
import { rankIcons } from './rules/logo.ts';
import { toImage } from '../shared/normalize/media.ts';

const MAX_TRIES = 3;

type Rules = Record<'image' | 'logo' | 'video' | 'audio', readonly Rule[]>;
type Normalizers = Record<'video' | 'audio', (v: unknown, d: Doc) => Media | undefined>;

function tooSmall(media: Media): boolean {
  return (media.width !== undefined && media.width <= 2) || (media.height !== undefined && media.height <= 2);
}

/**
 * Settles a media field: probes candidates in rule order and keeps the first that answers as real media of a
 * sensible size. A candidate the network cannot tell about is kept as declared; one an HTTP answer rules out
 * (404, an HTML page, a 1x1 pixel) gives way to the next.
 */
async function settle(
  candidates: Iterable<Media>,
  ctx: Probing,
  kind: 'image' | 'video' | 'audio',
): Promise<Media | null> {
  // The first candidate is right on most pages, so it is probed alone, and the later rules (some walk the whole
  // document) run only when it is ruled out; then the next ones are probed at once and the first acceptable in
  // rule order wins (two probe latencies at worst, never a sum).
  const rest = candidates[Symbol.iterator]();
  const first = [...take(rest, 1)];
  const found = await pick(first, ctx, kind);
  if (found || !first.length) return found;
  return pick([...take(rest, MAX_TRIES - 1)], ctx, kind);
}

/** Probes the candidates at once; the first acceptable in their order wins. */
async function pick(
  candidates: readonly Media[],
  ctx: Probing,
  kind: 'image' | 'video' | 'audio',
): Promise<Media | null> {
  const outcomes = candidates.map((c) => ctx.probe(c.url));
  for (const [i, candidate] of candidates.entries()) {
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

function* take<T>(items: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const next = items.next();
    if (next.done) return;
    yield next.value;
  }
}

function* logoCandidates(doc: Doc, rules: readonly Rule[]): Generator<Media> {
  yield* candidatesOf(doc, rules, toImage, (m) => m.url);
  for (const href of rankIcons(doc).slice(1)) yield { url: href };
}

/** Time kept for the rest of the answer when probes are cut short. */
const ANSWER_RESERVE_MS = 250;

/** What settling needs: a probe, and which of the optional fields (`audio`, `video`) were asked for. */
type Probing = Pick<Context, 'probe'> & { want: Want };

/** The optional media fields a request asks for (the top-level `audio` and `video` options). */
export interface Want {
  audio?: boolean;
  video?: boolean;
  /** The fields asked for (`meta.image=false` and the like); every field when absent. */
  fields?: ReadonlySet<string>;
}

/**
 * Settles the media fields of a page with probed facts; the favicon is the logo's last resort. Probes end with the
 * step's time: one still running then knows nothing, and its candidate is kept as the page declares it (a hanging
 * image host never turns the whole answer into a time-out).
 */
export async function completeMedia(
  doc: Doc,
  ctx: Context,
  want: Want,
  rules: Rules,
  normalizers: Normalizers,
): Promise<Record<keyof Rules, Media | null>> {
  // A plain timer, cleared once settled (an aborted `timers/promises` delay made an AbortError, a stack trace, on
  // every request); a cleared one leaves its promise pending, which nothing waits for any more.
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ctx.timeLeft() - ANSWER_RESERVE_MS), {
      status: 'unknown',
      reason: 'no time left to probe',
    });
    timer.unref();
  });
  const probe = (url: string) => Promise.race([ctx.probe(url), outOfTime]);
  try {
    return await settleAll(doc, { probe, want }, rules, normalizers);
  } finally {
    clearTimeout(timer);
  }
}

async function settleAll(
  doc: Doc,
  ctx: Probing,
  rules: Rules,
  normalizers: Normalizers,
): Promise<Record<keyof Rules, Media | null>> {
  const logo = async () => {
    const found = await settle(logoCandidates(doc, rules.logo), ctx, 'image');
    if (found) return found;
    const favicon = new URL('/favicon.ico', doc.url).href;
    const outcome = await ctx.probe(favicon);
    return outcome.status === 'ok' && outcome.kind === 'image' ? { ...outcome.media, url: favicon } : null;
  };
  // A field nobody asked for is neither read nor probed; video and audio only when asked for at all.
  const asked = (name: string) => !ctx.want.fields || ctx.want.fields.has(name);
  const urlOf = (m: Media) => m.url;
  const media = (kind: 'video' | 'audio') =>
    ctx.want[kind] && asked(kind) ? settle(candidatesOf(doc, rules[kind], normalizers[kind], urlOf), ctx, kind) : null;
  const [imageOut, logoOut, videoOut, audioOut] = await Promise.all([
    asked('image') ? settle(candidatesOf(doc, rules.image, toImage, urlOf), ctx, 'image') : null,
    asked('logo') ? logo() : null,
    media('video'),
    media('audio'),
  ]);
  return { image: imageOut, logo: logoOut, video: videoOut, audio: audioOut };
}
