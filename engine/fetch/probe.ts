import { execFile } from 'node:child_process';
import { open, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { imageSize } from 'image-size';
import { LRUCache } from 'lru-cache';
import type { FetchResult } from './http.ts';
import { lightGet, type LightAgents } from './light.ts';
import type { Guard } from './guard.ts';
import { mediaType, prettyDuration, withSize, type Media } from '../kernel/media.ts';
import { withDeadline } from '../kernel/deadline.ts';

const run = promisify(execFile);
const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 256 * 1024;

/** What a probe learned: the media's facts; that it is not there (an HTTP answer said so); or nothing. */
export type ProbeOutcome =
  | { status: 'ok'; media: Media; kind: string }
  | { status: 'absent'; reason: string }
  | { status: 'unknown'; reason: string; unreachable?: boolean };

/** Network failures that say a host cannot be reached (rather than that one URL of it is wrong). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEOUT',
]);

/** Probes URLs with few bytes through the guard, once per URL per request. */
export type Prober = (url: string) => Promise<ProbeOutcome>;

function totalSize(res: FetchResult): number | undefined {
  const range = /\/(\d+)\s*$/.exec(res.headers['content-range'] ?? '');
  if (range) return Number(range[1]);
  return res.statusCode === 200 ? res.size : undefined;
}

/** Reads duration and video dimensions of a local media file with ffprobe. */
export async function ffprobe(
  file: string,
  signal: AbortSignal,
): Promise<{ duration?: number; width?: number; height?: number }> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
    { signal, timeout: 5000 },
  );
  const info = JSON.parse(stdout) as {
    format?: { duration?: string };
    streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
  };
  const video = info.streams?.find((s) => s.codec_type === 'video' && s.width);
  const duration = Number(info.format?.duration ?? info.streams?.find((s) => s.duration)?.duration);
  return {
    duration: Number.isFinite(duration) && duration > 0 ? duration : undefined,
    width: video?.width,
    height: video?.height,
  };
}

/** Reads duration (and video dimensions) from the head and tail of a file laid out sparsely at its real size. */
async function avFacts(
  url: string,
  head: Buffer,
  size: number | undefined,
  opts: ProbeOptions,
): Promise<{ duration?: number; width?: number; height?: number }> {
  let tail: Buffer | undefined;
  if (size && size > head.length) {
    const res = await lightGet(url, {
      guard: opts.guard,
      agents: opts.agents,
      signal: opts.signal,
      maxBytes: TAIL_BYTES,
      headers: { range: `bytes=-${TAIL_BYTES}` },
    }).catch(() => undefined);
    if (res?.statusCode === 206) tail = res.body;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'refract-probe-'));
  const file = path.join(dir, 'media');
  try {
    const fd = await open(file, 'w');
    try {
      await fd.write(head, 0, head.length, 0);
      if (tail && size) await fd.write(tail, 0, tail.length, size - tail.length);
      if (size) await fd.truncate(size);
    } finally {
      await fd.close();
    }
    return await ffprobe(file, opts.signal);
  } catch {
    return {};
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What probing needs: the guard, the request's deadline, and the longest one probe may take. */
export interface ProbeOptions {
  guard: Guard;
  signal: AbortSignal;
  timeoutMs?: number;
  agents?: LightAgents;
}

/** Probes one URL: a ranged GET of its first bytes, then image headers or ffprobe for the facts. */
export async function probeMedia(url: string, opts: ProbeOptions): Promise<ProbeOutcome> {
  let res: FetchResult;
  try {
    res = await lightGet(url, {
      guard: opts.guard,
      agents: opts.agents,
      signal: opts.signal,
      maxBytes: HEAD_BYTES,
      headers: { range: `bytes=0-${HEAD_BYTES - 1}` },
    });
  } catch (err) {
    // No answer from the host at all (refused, unreachable, no name, or silent past the probe's budget).
    const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code ?? '';
    const unreachable = UNREACHABLE.has(code) || opts.signal.aborted;
    return { status: 'unknown', reason: (err as Error).message, ...(unreachable ? { unreachable } : {}) };
  }
  if (res.statusCode >= 400) return { status: 'absent', reason: `answered ${res.statusCode}` };
  if (res.kind === 'html' || /^\s*<(!doctype|html)/i.test(res.body.subarray(0, 64).toString('latin1'))) {
    return { status: 'absent', reason: 'answered a page, not media' };
  }
  const size = totalSize(res);
  const base = withSize({ url: res.url, type: mediaType(res.url, res.contentType) }, size) as Media;
  if (res.kind === 'image') {
    try {
      const dim = imageSize(new Uint8Array(res.body));
      return { status: 'ok', kind: 'image', media: { ...base, width: dim.width, height: dim.height } };
    } catch {
      return { status: 'ok', kind: 'image', media: base };
    }
  }
  if (res.kind === 'video' || res.kind === 'audio' || res.kind === 'other') {
    const facts = await avFacts(res.url, res.body, size, opts);
    const media: Media = { ...base };
    if (facts.width && facts.height) {
      media.width = facts.width;
      media.height = facts.height;
    }
    if (facts.duration) {
      media.duration = Number(facts.duration.toFixed(3));
      media.duration_pretty = prettyDuration(facts.duration);
    }
    return { status: 'ok', kind: res.kind, media };
  }
  return { status: 'ok', kind: res.kind, media: base };
}

/**
 * What the engine learned of media URLs lately (an outcome that said something: facts, or absent), so that the
 * logo, the favicon and the shared images of a site are probed once, not on every page of it. Probes carry no
 * caller's headers or proxy, so what one request learned holds for every other.
 */
export type ProbeMemory = LRUCache<string, ProbeOutcome>;

export function createProbeMemory(max = 5000, ttlMs = 10 * 60_000): ProbeMemory {
  return new LRUCache<string, ProbeOutcome>({ max, ttl: ttlMs });
}

/**
 * A per-request prober: each URL is probed at most once, concurrently shared; with a memory, a URL probed lately
 * by any request is answered from it (unless `fresh`: the request was forced).
 */
export function createProber(opts: ProbeOptions & { memory?: ProbeMemory; fresh?: boolean }): Prober {
  const seen = new Map<string, Promise<ProbeOutcome>>();
  if (opts.timeoutMs === 0) return async () => ({ status: 'unknown', reason: 'media probing is off' });
  const { memory } = opts;
  return (url) => {
    let outcome = seen.get(url);
    const origin = originOf(url);
    const known = opts.fresh ? undefined : (memory?.get(url) ?? (origin ? memory?.get(origin) : undefined));
    if (!outcome && known) seen.set(url, (outcome = Promise.resolve(known)));
    if (!outcome) {
      // A slow media host must not hold the answer: past its budget a probe knows nothing and the URL is kept.
      outcome = opts.timeoutMs
        ? withDeadline(opts.timeoutMs, [opts.signal], (signal) => probeMedia(url, { ...opts, signal }))
        : probeMedia(url, opts);
      if (memory)
        void outcome.then((o) => {
          if (o.status !== 'unknown') memory.set(url, o);
          // A host that could not be reached is remembered briefly, so that the other pages of a site (and the
          // other requests in flight) do not each wait their probe budget on it; the request's own end is not its.
          else if (origin && o.unreachable && !opts.signal.aborted)
            memory.set(origin, { status: 'unknown', reason: `${o.reason} (its host lately)` }, { ttl: UNREACHABLE_MS });
        });
      seen.set(url, outcome);
    }
    return outcome;
  };
}

/** How long a media host that could not be reached is not tried again. */
const UNREACHABLE_MS = 60_000;

/** The memory's key of a URL's host (its origin), or undefined for a URL that does not parse. */
function originOf(url: string): string | undefined {
  return URL.canParse(url) ? `host ${new URL(url).origin}` : undefined;
}
