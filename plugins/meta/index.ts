import { definePlugin, options, bool } from '../../engine/index.ts';
import { absoluteUrl, createDoc, firstOf, type Doc } from '../shared/page/helpers.ts';
import { description, toDescription } from '../shared/page/rules/text.ts';
import { pageTitle } from '../shared/page/rules/title.ts';
import { author, toAuthor } from '../shared/page/rules/author.ts';
import { pageDate } from '../shared/page/rules/date.ts';
import { publisher, toPublisher } from '../shared/page/rules/publisher.ts';
import { lang, toDateLocale, toLang } from '../shared/page/rules/lang.ts';
import { video, audio, toImage, toVideo, toAudio, mediaType, type Media } from '../shared/page/rules/media.ts';
import { image } from '../shared/page/rules/media-image.ts';
import { logo, canonical } from '../shared/page/rules/brand.ts';
import { describeTarget } from './target.ts';
import { completeMedia } from './media.ts';
import { metaDocument } from './source.ts';

/** Extracts normalized metadata from a parsed document; exported for the library and the benchmarks. */
export function extractMeta(
  doc: Doc,
  want: { audio?: boolean; video?: boolean; media?: boolean } = {},
): Record<string, unknown> {
  const media = want.media !== false;
  const url = firstOf(doc, canonical, (v) => absoluteUrl(v, doc.url)) ?? doc.url;
  const language = firstOf(doc, lang, toLang);
  return {
    lang: language ?? null,
    author: firstOf(doc, author, toAuthor) ?? null,
    title: pageTitle(doc) ?? null,
    publisher: firstOf(doc, publisher, toPublisher) ?? null,
    image: media ? (firstOf(doc, image, toImage) ?? null) : null,
    date: pageDate(doc, firstOf(doc, lang, toDateLocale)) ?? null,
    url,
    description: firstOf(doc, description, toDescription) ?? null,
    logo: media ? (firstOf(doc, logo, toImage) ?? null) : null,
    video: want.video ? (firstOf(doc, video, toVideo) ?? null) : null,
    audio: want.audio ? (firstOf(doc, audio, toAudio) ?? null) : null,
  };
}

export type { Media };
export { mediaType };

/** Normalized metadata: title, description, author, date, image, video, audio, lang, logo, publisher, url. */
export default definePlugin({
  name: 'meta',
  description: 'Normalized metadata of the page (title, description, author, date, image, logo, ...).',
  needs: 'html',
  defaultOn: true,
  merge: true,
  params: options({}),
  // The contract names these at the top level (`video`, not `meta.video`).
  topLevel: {
    audio: bool().default(false).describe("Detect the page's audio source, probed for size and duration."),
    video: bool().default(false).describe("Detect the page's video source, probed for size and duration."),
  },
  async run(ctx, want) {
    if (ctx.response.kind !== 'html' && ctx.response.kind !== 'text') return describeTarget(ctx.response, ctx.probe);
    // A long page's rules read its lean source (source.ts): the whole page held the event loop for most of a second.
    const doc = createDoc(
      metaDocument(ctx.response.text, () => ctx.$, ctx.url),
      ctx.url,
    );
    // Probes start first so that they are in flight while the text fields are read.
    const media = completeMedia(
      doc,
      ctx,
      want as { audio?: boolean; video?: boolean },
      { image, logo, video, audio },
      { video: toVideo, audio: toAudio },
    );
    const out = extractMeta(doc, { media: false });
    return Object.assign(out, await media);
  },
});
