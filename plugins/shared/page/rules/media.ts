import { absoluteUrl, byAttr, byJsonLd, byMeta, type Doc, type Rule } from '../helpers.ts';
import { select } from '../select.ts';
import { mediaType, type Media } from '../../../../engine/index.ts';

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
const VIDEO_TYPES = new Set(['mp4', 'webm', 'mov', 'm3u8', 'ogv']);
const AUDIO_TYPES = new Set(['mp3', 'm4a', 'ogg', 'wav', 'aac', 'flac', 'opus']);

/** Accepts an image (or logo): a Media URL that is not the URL of a video or audio file. */
export function toImage(value: unknown, doc: Doc): Media | undefined {
  const media = toMedia(value, doc);
  return media && !(media.type && (VIDEO_TYPES.has(media.type) || AUDIO_TYPES.has(media.type))) ? media : undefined;
}

/** A URL together with the content type the page declares for it (`og:video:type`, `<source type>`). */
interface Declared {
  src: unknown;
  mime?: string;
}

export const contentUrl = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(contentUrl);
  return v && typeof v === 'object'
    ? ((v as { contentUrl?: unknown; url?: unknown }).contentUrl ?? (v as { url?: unknown }).url)
    : v;
};

export const poster = byAttr('video[poster]', 'poster');

/** The first of the named `<meta>`, with the content type declared beside it. */
function declaredMeta(names: string[], typeName: string): Rule {
  return (doc) => {
    for (const name of names) {
      const src = byMeta(name)(doc);
      if (src) return { src, mime: byMeta(typeName)(doc) as string | undefined } satisfies Declared;
    }
    return undefined;
  };
}

/** The `src` of every element matching, with its `type` attribute. */
function declaredElements(selector: string): Rule {
  return ({ $ }) =>
    select($, selector)
      .slice(0, 8)
      .map((el) => ({ src: el.attribs.src, mime: el.attribs.type }) satisfies Declared);
}

/** The first link to a file of one of these types. */
function linkTo(types: ReadonlySet<string>): Rule {
  return ({ $, url }) => {
    for (const el of select($, 'a[href]')) {
      const href = absoluteUrl(el.attribs.href, url);
      const type = href && mediaType(href);
      if (type && types.has(type)) return href;
    }
    return undefined;
  };
}

/** Ordered rules for the video (docs/metadata.md). */
export const video: Rule[] = [
  declaredMeta(['og:video:secure_url', 'og:video:url', 'og:video'], 'og:video:type'),
  declaredMeta(['twitter:player:stream'], 'twitter:player:stream:content_type'),
  byJsonLd('contentUrl'),
  byJsonLd('video.contentUrl'),
  declaredElements('video[src]'),
  declaredElements('video source[src]'),
  linkTo(VIDEO_TYPES),
];

/** Ordered rules for the audio (docs/metadata.md). */
export const audio: Rule[] = [
  declaredMeta(['og:audio:secure_url', 'og:audio:url', 'og:audio'], 'og:audio:type'),
  declaredMeta(['twitter:player:stream'], 'twitter:player:stream:content_type'),
  byMeta('twitter:player:stream:audio'),
  byJsonLd('audio.contentUrl'),
  byJsonLd('associatedMedia.contentUrl'),
  byJsonLd('contentUrl'),
  declaredElements('audio[src]'),
  declaredElements('audio source[src]'),
  linkTo(AUDIO_TYPES),
];

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
