import { load, type CheerioAPI } from 'cheerio';
import { Parser } from 'htmlparser2';
import { DomHandler, hasChildren, type ChildNode, type Document, type ParentNode } from 'domhandler';

const OPTIONS = { xml: { xmlMode: false, decodeEntities: true, encodeEntities: 'utf8' } } as const;

/**
 * Parses a document with htmlparser2 through cheerio: about 7x faster than cheerio's default parse5 on real
 * pages (measured on the corpus), with the same metadata results there.
 */
export function parseHtml(html: string, url?: string): CheerioAPI {
  const { parser, handler, deep } = depthCounting();
  parser.end(htmlCdata(html));
  return loaded(handler, deep(), url);
}

/**
 * How deep elements nest at most, bounded as browsers bound a document (Chromium's parser puts an element that would
 * be deeper than 512 beside the 512th instead of inside it). Past it every walk of the tree (ours, cheerio's text,
 * Readability's, turndown's) recurses that deep: a page nested 10,000 deep ended the request with "Maximum call
 * stack size exceeded". Half Chromium's bound, because Readability's cleaning costs the square of the depth (a page
 * nested 512 deep held the event loop 1.8 s, 256 deep 0.45 s); real pages nest far less (the corpora's 2,367 pages:
 * median 18, 99th percentile 62, two pages past 256, both of unclosed tags).
 */
export const MAX_DEPTH = 256;

/** Documents whose nesting was bounded (their HTML is the document's own only once written out again). */
const bounded = new WeakSet<CheerioAPI>();

/** True when the document nested deeper than MAX_DEPTH and was bounded: read `$.html()`, not the raw text. */
export function wasBounded($: CheerioAPI): boolean {
  return bounded.has($);
}

/** Elements whose content is text or foreign (SVG, MathML): a CDATA section there is what it says. */
const RAW_OR_FOREIGN = /<(script|style|textarea|title|xmp|iframe|noembed|noframes|svg|math)\b|<!\[CDATA\[/gi;

/**
 * A CDATA section in an HTML page's markup as a browser reads it: a bogus comment that ends at the next `>` (the HTML
 * standard's cdata-in-html-content). htmlparser2 reads it to its `]]>`, which a page that opens one by mistake never
 * writes: a forum theme's `<![CDATA[` after `<body>` hid the whole body (every post, the thread's starter). Written
 * `<!CDATA[`, a declaration to htmlparser2, it ends at the `>` as in a browser; in scripts, styles, SVG and MathML a
 * CDATA section stays.
 */
export function htmlCdata(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  let lower: string | undefined;
  let out = '';
  let at = 0;
  RAW_OR_FOREIGN.lastIndex = 0;
  for (let m = RAW_OR_FOREIGN.exec(html); m; m = RAW_OR_FOREIGN.exec(html)) {
    if (m[1]) {
      // Past the element's end tag (none: the rest is its content).
      const end = (lower ??= html.toLowerCase()).indexOf(`</${m[1].toLowerCase()}`, RAW_OR_FOREIGN.lastIndex);
      if (end < 0) break;
      RAW_OR_FOREIGN.lastIndex = end;
      continue;
    }
    out += `${html.slice(at, m.index)}<!`;
    at = m.index + 3;
  }
  return out + html.slice(at);
}

/** htmlparser2's parser into a DOM, counting how deep tags open (no walk of the tree is needed to know). */
function depthCounting() {
  const handler = new DomHandler(undefined, { xmlMode: false });
  let depth = 0;
  let max = 0;
  const parser = new Parser(
    {
      onparserinit: (p) => handler.onparserinit(p),
      onreset: () => handler.onreset(),
      onend: () => handler.onend(),
      onerror: (e) => handler.onerror(e),
      onopentag: (name, attribs) => {
        if (++depth > max) max = depth;
        handler.onopentag(name, attribs);
      },
      onclosetag: () => {
        depth--;
        handler.onclosetag();
      },
      ontext: (t) => handler.ontext(t),
      oncomment: (c) => handler.oncomment(c),
      oncommentend: () => handler.oncommentend(),
      oncdatastart: () => handler.oncdatastart(),
      oncdataend: () => handler.oncdataend(),
      onprocessinginstruction: (n, d) => handler.onprocessinginstruction(n, d),
    },
    { xmlMode: false, decodeEntities: true },
  );
  return { parser, handler, deep: () => max > MAX_DEPTH };
}

/** The parsed tree as cheerio's document, its nesting bounded first when it went past MAX_DEPTH. */
function loaded(handler: DomHandler, deep: boolean, url: string | undefined): CheerioAPI {
  if (deep) boundDepth(handler.root);
  const $ = load(handler.root, { ...OPTIONS, baseURI: url });
  if (deep) bounded.add($);
  return $;
}

/**
 * Bounds a tree's nesting as Chromium's parser does, without recursion: the descendants of an element at MAX_DEPTH
 * become its children in document order (each keeping its attributes and its own text), so text reads as before.
 */
function boundDepth(root: Document): void {
  const stack: [ParentNode, number][] = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth < MAX_DEPTH) {
      for (const child of node.children) if (hasChildren(child)) stack.push([child, depth + 1]);
      continue;
    }
    // Every descendant, in document order, as a child of this one.
    const flat: ChildNode[] = [];
    const walk: ChildNode[] = [...node.children].reverse();
    while (walk.length) {
      const next = walk.pop()!;
      flat.push(next);
      if (hasChildren(next)) {
        for (let i = next.children.length - 1; i >= 0; i--) walk.push(next.children[i]!);
        next.children = [];
      }
    }
    node.children = flat;
    flat.forEach((child, i) => {
      child.parent = node;
      child.prev = flat[i - 1] ?? null;
      child.next = flat[i + 1] ?? null;
    });
  }
}

/** Documents longer than this (characters) are parsed in slices, with a turn of the event loop between them. */
export const SLICED_PARSE_CHARS = 256 * 1024;
/** One slice: ~3-8 ms of parsing here, so that other requests are answered between slices. */
const SLICE_CHARS = 48 * 1024;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The same parse as parseHtml (htmlparser2's parser and DOM, with cheerio's options) fed in slices: a 5 MB page
 * held the event loop for ~0.5 s in one piece, and every other request of the process waited behind it. Stops at
 * `signal`.
 */
export async function parseHtmlSliced(
  html: string,
  url: string | undefined,
  signal?: AbortSignal,
): Promise<CheerioAPI> {
  const { parser, handler, deep } = depthCounting();
  html = htmlCdata(html);
  for (let at = 0; at < html.length; at += SLICE_CHARS) {
    parser.write(html.slice(at, at + SLICE_CHARS));
    await turn();
    signal?.throwIfAborted();
  }
  parser.end();
  return loaded(handler, deep(), url);
}

/** The part of a body that is parsed: all of it, or up to the last tag that starts within `max` characters. */
export function documentText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('<', max);
  return text.slice(0, cut > 0 ? cut : max);
}
