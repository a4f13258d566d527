import { definePlugin, options, bool } from '../../engine/index.ts';
import { absoluteUrl, createDoc, firstOf, type Doc } from '../shared/page/helpers.ts';
import { toDescription } from '../shared/normalize/text.ts';
import { toAuthor } from '../shared/normalize/author.ts';
import { toPublisher } from '../shared/normalize/publisher.ts';
import { toDateLocale, toLang } from '../shared/normalize/lang.ts';
import { toImage, toVideo, toAudio, mediaType, type Media } from '../shared/normalize/media.ts';
import { pageTitle } from './rules/title.ts';
import { description } from './rules/description.ts';
import { author, declaredPerson, writtenBy } from './rules/author.ts';
import { wholeByline } from './rules/author-several.ts';
import { pageDate } from './rules/date.ts';
import { publisher } from './rules/publisher.ts';
import { lang } from './rules/lang.ts';
import { image } from './rules/image.ts';
import { video, audio } from './rules/media.ts';
import { logo, canonical } from './rules/logo.ts';
import { describeTarget } from './target.ts';
import { completeMedia } from './media.ts';
import { fieldFlags, onlySelected, selectedFields, type Field } from './fields.ts';
import { metaDocument } from './source.ts';

/** What a caller of `extractMeta` asks for: the optional fields, media or not, and a selection of fields. */
export interface MetaWant {
  audio?: boolean;
  video?: boolean;
  /** false: the media fields are left null (the plugin settles them with probes). */
  media?: boolean;
  /** Only these fields (and `url`) are read and answered; every field when absent. */
  fields?: ReadonlySet<Field>;
}

/** Extracts normalized metadata from a parsed document; exported for the library and the benchmarks. */
export function extractMeta(doc: Doc, want: MetaWant = {}): Record<string, unknown> {
  const media = want.media !== false;
  const readers: [Field | 'url', () => unknown][] = [
    ['lang', () => firstOf(doc, lang, toLang)],
    ['author', () => wholeByline(doc, writtenBy(doc) ?? firstOf(doc, author, toAuthor) ?? declaredPerson(doc))],
    ['title', () => pageTitle(doc)],
    ['publisher', () => firstOf(doc, publisher, toPublisher)],
    ['image', () => (media ? firstOf(doc, image, toImage) : null)],
    ['date', () => pageDate(doc, firstOf(doc, lang, toDateLocale))],
    ['url', () => firstOf(doc, canonical, (v) => absoluteUrl(v, doc.url)) ?? doc.url],
    ['description', () => firstOf(doc, description, toDescription)],
    ['logo', () => (media ? firstOf(doc, logo, toImage) : null)],
    ['video', () => (want.video ? firstOf(doc, video, toVideo) : null)],
    ['audio', () => (want.audio ? firstOf(doc, audio, toAudio) : null)],
  ];
  const out: Record<string, unknown> = {};
  // A field nobody asked for is not read at all (some rules walk the whole document).
  for (const [name, read] of readers)
    if (name === 'url' || !want.fields || want.fields.has(name)) out[name] = read() ?? null;
  return out;
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
  params: options(fieldFlags),
  // The contract names these at the top level (`video`, not `meta.video`).
  topLevel: {
    audio: bool().default(false).describe("Detect the page's audio source, probed for size and duration."),
    video: bool().default(false).describe("Detect the page's video source, probed for size and duration."),
  },
  async run(ctx, opts) {
    const fields = selectedFields(opts);
    const want = { ...(opts as { audio?: boolean; video?: boolean }), fields };
    if (ctx.response.kind !== 'html' && ctx.response.kind !== 'text')
      return onlySelected(await describeTarget(ctx.response, ctx.probe), fields);
    // A long page's rules read its lean source (source.ts): the whole page held the event loop for most of a second.
    const doc = createDoc(
      metaDocument(ctx.response.text, () => ctx.$, ctx.url),
      ctx.url,
    );
    // Probes start first so that they are in flight while the text fields are read.
    const media = completeMedia(doc, ctx, want, { image, logo, video, audio }, { video: toVideo, audio: toAudio });
    const out = extractMeta(doc, { media: false, fields });
    return onlySelected(Object.assign(out, await media), fields);
  },
});
