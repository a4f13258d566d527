// The posts of a thread, each with its author and time. Forum software draws a post's author and date in a column or
// header of their own (a user card, an attribution bar) that the content's cleaning removes with the rest of the
// page's furniture: each post is found here first, and its author and time are written at its start as one line of
// plain text that the cleaning keeps (`**alder_walker** · Jan 10, 2025`, the date's exact value in the HTML's
// `<time datetime>`).
import { textOf as text, words, type El } from './content-text.ts';

/** The element that declares a post's author (schema.org's itemprop): taken alone when the page has any. */
const DECLARED = '[itemprop="author"]';
/** Class words of forum software's author names and user cards (XenForo, phpBB, vBulletin, Discourse, Reddit...). */
const AUTHOR_NAMES =
  /^(username|user-name|author|post-author|postauthor|poster|message-name|topic-author|comment-author|creator|names|first-post-author|cauthorpane_author)$/;
/** Class words of a post's date. */
const DATE_NAMES = /^(relativetime|post-date|postdate|post-time|posttime|timestamp|message-date|date|post-datetime)$/;
/** What a date in an attribute looks like (ISO 8601, or Stack Exchange's `2011-03-03 17:58:19Z`). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;
/**
 * Marks a post with its author and date until its line is written (writePostLines), once the content is chosen: a
 * line written before it counted as a paragraph in Readability's scoring, which then chose one post for the thread.
 */
const POST = 'data-refract-post';
/** A post's own words (beyond its author and date) that make it a post, not a user card. */
const MIN_POST_WORDS = 8;
/** An author's mark longer than this is more than a name and a date (a user card with a bio): it stays. */
const MAX_MARK_WORDS = 16;

const classWords = (el: Element): string[] => (el.getAttribute('class') ?? '').toLowerCase().split(/\s+/);

/** The elements that name the posts' authors: the declared ones when there are any, else forum software's. */
function authorMarks(root: El): Element[] {
  let marks = [...root.querySelectorAll(DECLARED)];
  if (!marks.length)
    marks = [...root.querySelectorAll('[data-author], [class]')].filter(
      (el) => el.hasAttribute('data-author') || classWords(el).some((w) => AUTHOR_NAMES.test(w)),
    );
  // One mark a post: a mark inside another (the name inside its user card) is the same post's.
  return marks.filter((el) => !marks.some((other) => other !== el && other.contains(el)));
}

/** The name a mark gives: its attribute, its schema.org name, its first link, or its text when that is a name. */
function nameOf(mark: Element): string | undefined {
  const named =
    mark.getAttribute('data-author') ||
    mark.getAttribute('content') ||
    text(mark.querySelector('[itemprop="name"]')) ||
    text(mark.querySelector('a')) ||
    text(mark);
  const name = named?.replace(/^(by|posted by|from)\s+/i, '').trim();
  return name && name.split(/\s+/).length <= 4 && name.length <= 60 ? name : undefined;
}

/** A post's date: its machine-readable value (ISO 8601) and what the page shows, when it has either. */
interface PostDate {
  value?: string | undefined;
  shown?: string | undefined;
  /** The element it was read from (its line says it again: it goes). */
  from?: Element;
}

/** The date a post's mark stands nearest to: the first in the smallest element around the mark (up to the post). */
function timeOf(mark: Element, post: Element): PostDate | undefined {
  for (let at: Element | null = mark; at; at = at === post ? null : at.parentElement) {
    const found = dateIn(at);
    if (found) return found;
  }
  return undefined;
}

/** The first date in an element: a `<time>`, a declared date or an element named as a date. */
function dateIn(el: Element): PostDate | undefined {
  const marks = [el, ...el.querySelectorAll('time, [itemprop], [class]')].filter(
    (m) =>
      m.tagName === 'TIME' ||
      /^date(Published|Created)$/.test(m.getAttribute('itemprop') ?? '') ||
      classWords(m).some((w) => DATE_NAMES.test(w)),
  );
  for (const mark of marks) {
    const value = ['datetime', 'content', 'title']
      .map((attr) => mark.getAttribute(attr)?.trim())
      .find((v) => v && ISO_DATE.test(v));
    const shown = text(mark);
    const readable = shown.length <= 40 && /\d/.test(shown) ? shown : undefined;
    if (value || readable) return { value, shown: readable, from: mark };
  }
  return undefined;
}

/**
 * Marks each post with its author and time (its line is written by writePostLines), in place. A post is the largest
 * element around an author's mark that holds no other mark, with words of its own; a thread whose posts cannot be
 * told apart this way is left as it is.
 */
export function attributePosts(root: El): void {
  const marks = authorMarks(root);
  if (!marks.length) return;
  const inside = (el: Element) => marks.filter((m) => el.contains(m)).length;
  // Every post is found before any is changed (a mark removed below would let the next post grow over it).
  const posts = marks.map((mark) => {
    let post: Element = mark;
    for (let up = post.parentElement; up && up !== root && inside(up) === 1; up = up.parentElement) post = up;
    return post;
  });
  for (const [i, mark] of marks.entries()) {
    const post = posts[i]!;
    if (/^(TR|TBODY|TABLE|TD|UL|OL|P|SPAN|A|STRONG|B)$/.test(post.tagName)) continue;
    const name = nameOf(mark);
    // The post's words beyond its mark (or, for a post that is its own mark, `data-author`, beyond the name).
    const own = words(post.textContent) - (post === mark ? words(name) : words(mark.textContent));
    if (!name || own < MIN_POST_WORDS) continue;
    const date = timeOf(mark, post);
    post.setAttribute(POST, JSON.stringify({ name, value: date?.value, shown: date?.shown }));
    if (date?.from && date.from !== post && words(date.from.textContent) <= MAX_MARK_WORDS) date.from.remove();
    // The line says what the mark said (a name, "by … »", a date): the mark goes, unless it is the post itself.
    if (post !== mark && words(mark.textContent) <= MAX_MARK_WORDS) mark.remove();
  }
}

/** The posts marked under `root` (attributePosts), their lines not yet written. */
export const postsOf = (root: Element): Element[] => [...root.querySelectorAll(`[${POST}]`)];
/** The smallest element around a thread's marked posts (two or more), without the threads listed after them. */
export function threadOf(root: Element): Element | undefined {
  const posts = postsOf(root);
  let around = posts.length > 1 ? posts[0]!.parentElement : null;
  while (around && around !== root && !posts.every((post) => around!.contains(post))) around = around.parentElement;
  return around ?? undefined;
}

/** Writes each marked post's line at its start: `<p><strong>author</strong> · <time datetime>shown</time></p>`. */
export function writePostLines(root: Element): Element {
  for (const post of [root, ...root.querySelectorAll(`[${POST}]`)]) {
    const said = post.getAttribute(POST);
    if (said === null) continue;
    post.removeAttribute(POST);
    const { name, value, shown } = JSON.parse(said) as { name: string } & PostDate;
    const document = post.ownerDocument;
    const line = document.createElement('p');
    const author = document.createElement('strong');
    author.textContent = name;
    line.append(author);
    // The date as the page shows it, its exact value kept in the HTML.
    if (value || shown) {
      const time = document.createElement('time');
      if (value) time.setAttribute('datetime', value);
      time.textContent = shown ?? value!;
      line.append(' · ', time);
    }
    post.prepend(line);
  }
  return root;
}
