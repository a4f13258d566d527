// The page's own text as a reader meets it, in order, walked once for every reader of it (dates: date-text.ts,
// bylines: byline-text.ts): navigation, footers, scripts, forms and the parts named as chrome are not read
// (chrome.ts), nor a customer review's or a comment's microdata; and where its headline starts in it.
import type { AnyNode, Element } from 'domhandler';
import type { Doc } from '../../shared/page/helpers.ts';
import { hides } from '../../shared/page/shown.ts';
import { aroundHeadline, CHROME_TAGS, chromeName, headlineOf, isHeadline, isReview } from './chrome.ts';

/** The most text read from a page at all: a long story's closing byline (`Text: …` after 50,000 characters) with it. */
const MAX_TEXT = 60_000;
const BLANK = /^\s*$/;
/** Where an element starts or ends in the text as walked (written as the reader's `boundary`). */
const EDGE = '\u0000';

/** The page's own text as walked once, an EDGE at each element's start and end, and the headline's part. */
function walkText(doc: Doc): { parts: string[]; headline: number } {
  const parts: string[] = [];
  let length = 0;
  let headline = -1;
  const headings: { at: number; el: Element }[] = [];
  // The layout around the headline is never chrome, whatever its class says (`zen-one-sidebar-second` is a layout).
  const around = aroundHeadline(headlineOf(doc.$));
  const walk = (node: AnyNode) => {
    if (length > MAX_TEXT) return;
    if (node.type === 'text') {
      const t = (node as unknown as { data: string }).data;
      parts.push(t);
      // Counted as read, white space collapsed: indentation is most of some pages' text nodes.
      length += BLANK.test(t) ? 1 : t.length;
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const el = node as Element;
    if (node.type === 'tag') {
      // A page inside one form (ASP.NET's WebForms wrap the whole body in one) is the page, not a form of its.
      if (CHROME_TAGS.has(el.name) && !(el.name === 'form' && around.has(el))) return;
      if (!around.has(el) && chromeName(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)) return;
      // What its style hides, the reader never reads.
      if (hides(el.attribs.style)) return;
      // A review or comment of the item the page shows (microdata): its date and author are its own.
      if (isReview(el.attribs.itemprop)) return;
      // The first headline read (not one in the parts not read), not a logo set in an <h1>.
      if (el.name === 'h1' && headline < 0 && isHeadline(doc.$, el)) headline = parts.length;
      else if (headline < 0 && SUBHEADING.test(el.name)) headings.push({ at: parts.length, el });
      parts.push(EDGE);
      length++;
    }
    for (const child of el.children) walk(child);
    if (node.type === 'tag') parts.push(EDGE);
  };
  const body = doc.$('body')[0];
  if (body) walk(body);
  return { parts, headline: headline >= 0 ? headline : titledHeading(doc, headings) };
}

/** Headings below the first rank: a page without an `<h1>` may set its headline in one. */
const SUBHEADING = /^h[2-6]$/;

/**
 * Where a page without an `<h1>` has its headline: the first lower heading that says what its declared title says
 * (`<h6>Energiepreiskrise: …</h6>` under `<title>Energiepreiskrise: … - energieverbraucher.de</title>`), or none.
 */
function titledHeading(doc: Doc, headings: { at: number; el: Element }[]): number {
  const title = squash(doc.meta.byName.get('og:title')?.[0] ?? doc.$('title').first().text());
  if (title.length < 8) return -1;
  for (const { at, el } of headings) {
    const text = squash(doc.$(el).text());
    if (text.length >= 8 && title.includes(text)) return at;
  }
  return -1;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The page's readable text in order, and where its first headline (h1) starts in it; `boundary` is written where an
 * element starts and ends (a space, or a mark that keeps a byline's name from running into the next element's text).
 * The page is walked once for every reader (dates and bylines).
 */
export function readText(doc: Doc, boundary = ' '): { text: string; headline: number } {
  const read = doc.once(joinedTexts);
  let joined = read.get(boundary);
  if (!joined) read.set(boundary, (joined = joinText(doc, boundary)));
  return joined;
}

/** The text as joined for each boundary asked for (dates and bylines ask for it several times a page). */
const joinedTexts = (): Map<string, { text: string; headline: number }> => new Map();

function joinText(doc: Doc, boundary: string): { text: string; headline: number } {
  const { parts, headline } = doc.once(walkText);
  const join = (list: string[]) => {
    const joined = list.join('');
    return (boundary === EDGE ? joined : joined.replaceAll(EDGE, boundary)).replace(/\s+/g, ' ');
  };
  // Where the headline starts in the text as returned (white space collapsed).
  return { text: join(parts), headline: headline < 0 ? -1 : join(parts.slice(0, headline)).length };
}
