// The main content of a page: what a reader (or a language model) wants of it, without the site around it.
// Readability picks the container; the rules here clean the page before it looks (noise, landmark roles) and
// the container after (link lists, captions, share bars, bylines, dangling headings), with the page's own JSON-LD
// `articleBody`, when it has one, as evidence of which blocks are the article.
import { Readability } from 'refract-readability';
import { textOf, words, type El } from './content-text.ts';
import { prune } from './content-prune.ts';
import { refine } from './content-refine.ts';

export { NOISE } from './content-prune.ts';

function articleBodyOf(document: Document): string | undefined {
  let best = '';
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    const found = /"articleBody"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(script.textContent ?? '');
    if (!found) continue;
    try {
      // Some sites write entities (`&apos;`) into the JSON string: the page's parser reads them.
      const holder = document.createElement('div');
      holder.innerHTML = JSON.parse(`"${found[1]}"`) as string;
      const text = holder.textContent ?? '';
      if (text.length > best.length) best = text;
    } catch {
      /* a malformed string is no evidence */
    }
  }
  return words(best) >= 80 ? best : undefined;
}

export interface MainContent {
  title: string | undefined;
  root: El;
}

/**
 * The main content of a parsed page (the document is changed): the article's container, cleaned, and its title;
 * undefined when Readability finds no article (a home page, a list), for the caller's fallback.
 */
export function mainContent(document: Document): MainContent | undefined {
  const evidence = articleBodyOf(document);
  const headings = headlines(document);
  prune(document);
  let article: ReturnType<Readability<El>['parse']>;
  try {
    article = new Readability(document, { keepClasses: true, serializer: (node) => node as El }).parse();
  } catch {
    // Readability fails on some trees (its top candidate's ancestors end before <body>): the page is read whole.
    return undefined;
  }
  if (!article?.content) return undefined;
  let root = article.content as unknown as El;
  // The page's own mark of its article, when the container holds more: one <article> (or articleBody) with most of the text.
  const marked = [...root.querySelectorAll('article, [itemprop="articleBody"]')].filter(
    (el) => !el.parentElement?.closest('article, [itemprop="articleBody"]'),
  );
  if (marked.length === 1 && words(marked[0]!.textContent) >= words(root.textContent) * 0.6) root = marked[0]!;
  const before = words(root.textContent);
  refine(root, evidence);
  // What the rules left is no article (a home page of teasers, a list of links): the caller takes the page instead.
  if (words(root.textContent) < Math.max(25, before * 0.2)) return undefined;
  const title = titleOf(article.title, headings);
  // The title heads the Markdown: the same heading inside the container would say it twice.
  const same = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim().toLowerCase() === title?.toLowerCase();
  for (const h of [...root.querySelectorAll('h1, h2, h3')]) if (same(h.textContent)) h.remove();
  return { title, root };
}

/** The page's `<h1>` texts that may be its title. */
export function headlines(document: Document): string[] {
  return (
    [...document.querySelectorAll('h1')]
      .map((h) => textOf(h))
      // Two words or more; Chinese and Japanese write a headline without spaces (`新しい駅が開業`): four letters or more.
      .filter((t) => words(t) >= 2 || (t.match(CJK_LETTERS)?.length ?? 0) >= 4)
  );
}

/** Letters of the scripts written without spaces between words. */
const CJK_LETTERS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/gu;

/**
 * The article's own title: the page's `<h1>` that the document title contains (without the site's name around
 * it, "Site | Tagline: Title"), else Readability's.
 */
export function titleOf(title: string | null | undefined, headings: string[]): string | undefined {
  const t = title?.replace(/\s+/g, ' ').trim();
  if (!t) return headings[0];
  return headings.find((h) => h.length < t.length && t.toLowerCase().includes(h.toLowerCase())) ?? t;
}
