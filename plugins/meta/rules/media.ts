// The rules for a page's video and audio (their normalisation is plugins/shared/normalize/media.ts's).
import { absoluteUrl, byAttr, byJsonLd, byMeta, type Rule } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { AUDIO_TYPES, mediaType, VIDEO_TYPES, type Declared } from '../../shared/normalize/media.ts';

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
