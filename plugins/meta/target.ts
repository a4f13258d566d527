import { imageSize } from 'image-size';
import type { FetchResult } from '../../engine/index.ts';
import { mediaType, type Media } from './rules/media.ts';

function prettyBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = n;
  let i = 0;
  while (value >= 1000 && i < units.length - 1) { value /= 1000; i++; }
  return `${i === 0 ? value : value.toFixed(value < 10 ? 1 : 0).replace(/\.0$/, '')} ${units[i]}`;
}

/** Describes a Media object's byte size in both forms the contract has. */
export function withSize(media: Media, size: number | undefined): Media {
  return size === undefined ? media : { ...media, size, size_pretty: prettyBytes(size) };
}

function fileTitle(url: string): string | null {
  try {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return name || null;
  } catch {
    return null;
  }
}

/** Data for a target that is itself a file (image, video, audio, PDF...) rather than a page. */
export function describeTarget(res: FetchResult): Record<string, unknown> {
  const base: Media = withSize({ url: res.url, type: mediaType(res.url, res.contentType) ?? res.kind }, res.size);
  const out: Record<string, unknown> = {
    lang: null, author: null, title: fileTitle(res.url), publisher: null, image: null, date: null,
    url: res.url, description: null, logo: null, video: null, audio: null,
  };
  if (res.kind === 'image') {
    try {
      const dim = imageSize(new Uint8Array(res.body));
      out.image = { ...base, width: dim.width, height: dim.height };
    } catch {
      out.image = base;
    }
  } else if (res.kind === 'video') out.video = base;
  else if (res.kind === 'audio') out.audio = base;
  const modified = res.headers['last-modified'] ? Date.parse(res.headers['last-modified']) : NaN;
  if (Number.isFinite(modified)) out.date = new Date(modified).toISOString();
  return out;
}
