import { absoluteUrl, byAttr, byAttrs, byJsonLd, byMeta, type Doc, type Rule } from '../helpers.ts';
import { mediaType, type Media } from '../../../engine/media.ts';

export { mediaType, type Media };

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
  byAttrs('article img[src]', 'src'), byAttrs('#content img[src]', 'src'), byAttrs('img[alt]:not([alt=""])[src]', 'src'),
];

/** Ordered rules for the video. */
export const video: Rule[] = [
  byMeta('og:video:secure_url'), byMeta('og:video:url'), byMeta('og:video'), byMeta('twitter:player:stream'),
  byJsonLd('contentUrl'), byJsonLd('video.contentUrl'), byAttr('video[src]', 'src'), byAttr('video source[src]', 'src'),
  byAttr('a[href$=".mp4" i]', 'href'), byAttr('a[href$=".webm" i]', 'href'),
];

/** Ordered rules for the audio. */
export const audio: Rule[] = [
  byMeta('og:audio:secure_url'), byMeta('og:audio:url'), byMeta('og:audio'), byMeta('twitter:player:stream:audio'),
  byJsonLd('audio.contentUrl'), byJsonLd('associatedMedia.contentUrl'), byJsonLd('contentUrl'), byAttr('audio[src]', 'src'),
  byAttr('audio source[src]', 'src'), byAttr('a[href$=".mp3" i]', 'href'), byAttr('a[href$=".m4a" i]', 'href'),
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
