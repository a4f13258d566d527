import { absoluteUrl, byAttr, byJsonLd, byMeta, type Doc, type Rule } from '../helpers.ts';

/** A Media object as the contract describes it; sizes are filled in where they are known. */
export interface Media {
  url: string;
  type?: string;
  size?: number;
  size_pretty?: string;
  width?: number;
  height?: number;
  duration?: number;
  duration_pretty?: string;
}

const EXT: Record<string, string> = {
  jpeg: 'jpg', jpg: 'jpg', png: 'png', gif: 'gif', webp: 'webp', avif: 'avif', svg: 'svg', ico: 'ico', bmp: 'bmp',
  mp4: 'mp4', webm: 'webm', mov: 'mov', m3u8: 'm3u8', ogv: 'ogv', mp3: 'mp3', m4a: 'm4a', ogg: 'ogg', oga: 'ogg',
  wav: 'wav', aac: 'aac', flac: 'flac', opus: 'opus', pdf: 'pdf',
};

/** The short file type of a URL (from its extension) or of a Content-Type. */
export function mediaType(url: string, contentType?: string): string | undefined {
  const sub = contentType?.split(';')[0]!.trim().toLowerCase().split('/')[1];
  if (sub) {
    const t = sub.replace(/^x-/, '').replace('svg+xml', 'svg').replace('vnd.microsoft.icon', 'ico').replace('mpeg', 'mp3').replace('quicktime', 'mov');
    return EXT[t] ?? t;
  }
  try {
    const ext = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
    return ext ? EXT[ext] : undefined;
  } catch {
    return undefined;
  }
}

const PLACEHOLDER = /(^|[/_.-])(spacer|blank|pixel|transparent|1x1|placeholder|lazy|loading|grey|gray)([/_.-]|$)/i;

/** Builds a Media object from a candidate URL; undefined for non-http values, data URIs and obvious placeholders. */
export function toMedia(value: unknown, doc: Doc): Media | undefined {
  const url = absoluteUrl(value, doc.url);
  if (!url) return undefined;
  let path = '';
  try { path = new URL(url).pathname; } catch { return undefined; }
  if (PLACEHOLDER.test(path.split('/').pop() ?? '')) return undefined;
  const type = mediaType(url);
  return type ? { url, type } : { url };
}

const contentUrl = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { contentUrl?: unknown; url?: unknown }).contentUrl ?? (v as { url?: unknown }).url : v);

/** Ordered rules for the representative image. */
export const image: Rule[] = [
  byMeta('og:image:secure_url'), byMeta('og:image:url'), byMeta('og:image'), byMeta('twitter:image:src'),
  byMeta('twitter:image'), byMeta('itemprop:image'), byJsonLd('image', contentUrl), byJsonLd('thumbnailUrl'),
  byAttr('link[rel="image_src" i]', 'href'), byAttr('[itemprop="image"]', 'content'), byAttr('[itemprop="image"]', 'src'),
  byAttr('article img[src]', 'src'), byAttr('#content img[src]', 'src'), byAttr('img[alt]:not([alt=""])[src]', 'src'),
];

/** Ordered rules for the video. */
export const video: Rule[] = [
  byMeta('og:video:secure_url'), byMeta('og:video:url'), byMeta('og:video'), byMeta('twitter:player:stream'),
  byJsonLd('contentUrl'), byAttr('video[src]', 'src'), byAttr('video source[src]', 'src'),
];

/** Ordered rules for the audio. */
export const audio: Rule[] = [
  byMeta('og:audio:secure_url'), byMeta('og:audio:url'), byMeta('og:audio'), byMeta('twitter:player:stream:audio'),
  byAttr('audio[src]', 'src'), byAttr('audio source[src]', 'src'),
];

const VIDEO_TYPES = new Set(['mp4', 'webm', 'mov', 'm3u8', 'ogv']);
const AUDIO_TYPES = new Set(['mp3', 'm4a', 'ogg', 'wav', 'aac', 'flac', 'opus']);

/** Accepts a video URL only when it points at a playable video file, not a player page. */
export function toVideo(value: unknown, doc: Doc): Media | undefined {
  const media = toMedia(value, doc);
  return media && media.type && VIDEO_TYPES.has(media.type) ? media : undefined;
}

/** Accepts an audio URL only when it points at an audio file. */
export function toAudio(value: unknown, doc: Doc): Media | undefined {
  const media = toMedia(value, doc);
  return media && media.type && AUDIO_TYPES.has(media.type) ? media : undefined;
}
