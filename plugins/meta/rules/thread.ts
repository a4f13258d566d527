// The author of a forum thread: whoever started it, named by the forum software beside the thread's first post (its
// user card or attribution line), as people read a thread's author. Read only on a page whose markup is a forum's.
import type { Element } from 'domhandler';
import type { Doc, Rule } from '../../shared/page/helpers.ts';
import { clean } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { elementText } from '../../shared/page/shown.ts';
import { typesOf } from '../../shared/page/jsonld.ts';
import { FORUM_POST_CLASSES, FORUM_POST_TAGS } from '../../shared/page/forum.ts';

/** A post as forum software marks it (plugins/shared/page/forum.ts), and vBulletin 3 by its id (`post_message_2017066`). */
const POSTS = [...FORUM_POST_TAGS, ...FORUM_POST_CLASSES.map((name) => `.${name}`), '[id^="post_message_"]'].join(', ');
/** Where forum software names a post's author, most specific first: a user's name, then a post's author line. */
const POSTER = [
  '.username',
  '.bigusername',
  '.PostUser-name',
  '.user-name',
  '.post-author',
  '.postauthor',
  '.poster',
  '.message-name',
  '.topic-author',
  '.postleft dt strong',
  '[itemprop="author"] [itemprop="name"]',
  '[itemprop="author"]',
  '[data-author]',
  '[author]',
];
/** How far up from the first post the search for its author goes (a post's user card sits beside it, in its row). */
const MAX_UP = 6;

/** The name a mark gives: its `data-author` or `author`, else its text, when that is short enough to be a name. */
function nameOf(el: Element): string | undefined {
  const name = clean(el.attribs['data-author'] ?? el.attribs.author ?? elementText(el));
  return name && name.split(/\s+/).length <= 4 ? name : undefined;
}

/** Types of a page's subject that no forum declares for a thread (its software declares a posting, or nothing). */
const NOT_THREAD = /^(NewsArticle|Article|BlogPosting|ReportageNewsArticle|Recipe|Product|TechArticle)$/;

/**
 * The thread's first post's author: the first mark of a poster in the smallest part around the first post. Not
 * looked for on a page whose JSON-LD says it is an article or another kind that is not a thread (the search walks
 * the page); `og:type` article does not say so: forum software writes it for its threads (XenForo 1).
 */
export const threadStarter: Rule = ({ $, jsonld }: Doc) => {
  if (jsonld.some((obj) => typesOf(obj).some((t) => NOT_THREAD.test(t)))) return undefined;
  const first = select($, POSTS)[0];
  if (!first) return undefined;
  let at: Element | null = first;
  for (let up = 0; at && at.name !== 'body' && up <= MAX_UP; up++, at = at.parent as Element | null) {
    for (const selector of POSTER) {
      const mark = $(at).find(selector)[0] ?? ($(at).is(selector) ? at : undefined);
      const name = mark && nameOf(mark);
      if (name) return name;
    }
  }
  return undefined;
};
