import { imageSize } from 'image-size';
import type { FetchResult, Prober } from '../../engine/index.ts';
import { mediaType, withSize, type Media } from '../../engine/index.ts';

function fileTitle(url: string): string | null {
  try {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return name || null;
  } catch {
    return null;
  }
}

/** Data for a target that is itself a file (image, video, audio, PDF...) rather than a page. */
export async function describeTarget(res: FetchResult, probe: Prober): Promise<Record<string, unknown>> {
  const base: Media = withSize({ url: res.url, type: mediaType(res.url, res.contentType) ?? res.kind }, res.size);
  const out: Record<string, unknown> = {
    lang: null,
    author: null,
    title: fileTitle(res.url),
    publisher: null,
    image: null,
    date: null,
    url: res.url,
    description: null,
    logo: null,
    video: null,
    audio: null,
  };
  if (res.kind === 'image') {
    try {
      const dim = imageSize(new Uint8Array(res.body));
      out.image = { ...base, width: dim.width, height: dim.height };
    } catch {
      out.image = base;
    }
  } else if (res.kind === 'video' || res.kind === 'audio') {
    // The target's own bytes carry no duration: ffprobe reads it from a ranged head and tail.
    const outcome = await probe(res.url);
    out[res.kind] = outcome.status === 'ok' ? { ...base, ...outcome.media } : base;
  }
  const modified = res.headers['last-modified'] ? Date.parse(res.headers['last-modified']) : NaN;
  if (Number.isFinite(modified)) out.date = new Date(modified).toISOString();
  return out;
}
