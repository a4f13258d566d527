import type { Context, Media, ProbeOutcome } from '../../engine/index.ts';
import { candidatesOf, type Doc, type Rule } from '../shared/page/helpers.ts';
import { rankIcons } from '../shared/page/rules/brand.ts';
import { toImage } from '../shared/page/rules/media.ts';

const MAX_TRIES = 3;

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
  const found = await pick(
    first,
    first.map((c) => ctx.probe(c.url)),
    kind,
  );
  if (found || !first.length) return found;
  const next = [...take(rest, MAX_TRIES - 1)];
  return pick(
    next,
    next.map((c) => ctx.probe(c.url)),
    kind,
  );
}

async function pick(
  candidates: readonly Media[],
  outcomes: readonly ReturnType<Probing['probe']>[],
  kind: 'image' | 'video' | 'audio',
): Promise<Media | null> {
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
  rules: Record<'image' | 'logo' | 'video' | 'audio', readonly Rule[]>,
  normalizers: Record<'video' | 'audio', (v: unknown, d: Doc) => Media | undefined>,
): Promise<Record<'image' | 'logo' | 'video' | 'audio', Media | null>> {
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
  rules: Record<'image' | 'logo' | 'video' | 'audio', readonly Rule[]>,
  normalizers: Record<'video' | 'audio', (v: unknown, d: Doc) => Media | undefined>,
): Promise<Record<'image' | 'logo' | 'video' | 'audio', Media | null>> {
  const logo = async () => {
    const found = await settle(logoCandidates(doc, rules.logo), ctx, 'image');
    if (found) return found;
    const favicon = new URL('/favicon.ico', doc.url).href;
    const outcome = await ctx.probe(favicon);
    return outcome.status === 'ok' && outcome.kind === 'image' ? { ...outcome.media, url: favicon } : null;
  };
  const [imageOut, logoOut, videoOut, audioOut] = await Promise.all([
    settle(
      candidatesOf(doc, rules.image, toImage, (m) => m.url),
      ctx,
      'image',
    ),
    logo(),
    ctx.want.video
      ? settle(
          candidatesOf(doc, rules.video, normalizers.video, (m) => m.url),
          ctx,
          'video',
        )
      : null,
    ctx.want.audio
      ? settle(
          candidatesOf(doc, rules.audio, normalizers.audio, (m) => m.url),
          ctx,
          'audio',
        )
      : null,
  ]);
  return { image: imageOut, logo: logoOut, video: videoOut, audio: audioOut };
}
