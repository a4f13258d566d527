// A media URL as a field holds it (a Media object): an image, a video or an audio file, by its extension or the
// content type the page declares beside it; never a data URI or an obvious placeholder.
import { absoluteUrl, type Doc } from '../page/helpers.ts';
import { mediaType, type Media } from '../../../engine/index.ts';

export { mediaType, type Media };

const PLACEHOLDER = /(^|[/_.-])(spacer|blank|pixel|transparent|1x1|placeholder|lazy|loading|grey|gray)([/_.-]|$)/i;

/** Builds a Media object from a candidate URL; undefined for non-http values, data URIs and obvious placeholders. */
export function toMedia(value: unknown, doc: Doc): Media | undefined {
  const url = absoluteUrl(value, doc.url);
  if (!url) return undefined;
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  if (PLACEHOLDER.test(path.split('/').pop() ?? '')) return undefined;
  const type = mediaType(url);
  return type ? { url, type } : { url };
}

/** The video and audio file types `mediaType` answers (its extension table maps m4v to mp4, oga to ogg...). */
export const VIDEO_TYPES = new Set(['mp4', 'webm', 'mov', 'm3u8', 'ogv']);
export const AUDIO_TYPES = new Set(['mp3', 'm4a', 'ogg', 'wav', 'aac', 'flac', 'opus']);

/** Accepts an image (or logo): a Media URL that is not the URL of a video or audio file. */
export function toImage(value: unknown, doc: Doc): Media | undefined {
  const media = toMedia(value, doc);
  return media && !(media.type && (VIDEO_TYPES.has(media.type) || AUDIO_TYPES.has(media.type))) ? media : undefined;
}

/** A URL together with the content type the page declares for it (`og:video:type`, `<source type>`). */
export interface Declared {
  src: unknown;
  mime?: string;
}

export const contentUrl = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(contentUrl);
  return v && typeof v === 'object'
    ? ((v as { contentUrl?: unknown; url?: unknown }).contentUrl ?? (v as { url?: unknown }).url)
    : v;
};

/**
 * A media candidate of one kind: a file of that kind by its extension, or any URL the page declares with a content
 * type of that kind (`video/mp4`); a player page is neither.
 */
function ofKind(kind: 'video' | 'audio', types: ReadonlySet<string>) {
  return (value: unknown, doc: Doc): Media | undefined => {
    const declared = value && typeof value === 'object' && 'src' in value ? (value as Declared) : { src: value };
    const media = toMedia(declared.src, doc);
    if (!media) return undefined;
    if (media.type && types.has(media.type)) return media;
    const mime = declared.mime?.trim().toLowerCase();
    if (!mime?.startsWith(`${kind}/`)) return undefined;
    return { ...media, type: mediaType(media.url, mime) };
  };
}

/** Accepts a video: a video file, by its extension or its declared content type. */
export const toVideo = ofKind('video', VIDEO_TYPES);

/** Accepts an audio: an audio file, by its extension or its declared content type. */
export const toAudio = ofKind('audio', AUDIO_TYPES);
