// Whether a page is one that has an author at all. A product, a shop's shelf, a list of stories, a service page or a
// home page names people (reviewers, testimonials, the authors of the stories it lists, a team) but is written by
// nobody in particular: such a page has an author only where it declares one as its own (its meta tags, the JSON-LD
// of its subject), never from a byline in its body. Read from the page's own word (the schema.org types it declares,
// `og:type`), the shape of its address, as the content's kinds are (content-kind.ts), and, where neither says, the
// bylines of a list of stories (one selection over the page, once a page).
import type { Doc } from '../../shared/page/doc.ts';
import type { Rule } from '../../shared/page/helpers.ts';
import type { Element } from 'domhandler';
import { select } from '../../shared/page/select.ts';
import { chromeName } from './chrome.ts';
import { typesOf } from '../../shared/page/jsonld.ts';

/** Types of a page's subject that nobody in particular writes (a business, LocalBusiness, is the site's owner, declared on its blog too). */
const UNAUTHORED_TYPES =
  /^(Product|ProductGroup|IndividualProduct|ProductModel|Offer|AggregateOffer|OfferCatalog|CollectionPage|SearchResultsPage|ItemList|Service|SoftwareApplication|WebApplication|MobileApplication|Course|Event|JobPosting)$/;
/** Types of a page's subject that someone writes: declared beside the others, they win (a Review is not among them: a product's reviews are declared beside it). */
const AUTHORED_TYPES =
  /^(Article|NewsArticle|BlogPosting|Blog|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|OpinionNewsArticle|ReviewNewsArticle|Recipe|HowTo|DiscussionForumPosting|QAPage|Question|SocialMediaPosting|Book|Chapter|Thesis|CreativeWork|MedicalWebPage|APIReference|LiveBlogPosting|VideoObject|PodcastEpisode)$/;
/** Types of the parts of a page that name other people: their authors are not the page's. */
export const OTHERS_TYPES = /^(Review|Comment|Answer|Rating|AggregateRating|Offer|Question|Product|Event|JobPosting)$/;

/** Paths of a shop's products and shelves, of lists of stories (topics, tags, categories, archives), and the home. */
const UNAUTHORED_PATH =
  /^\/?$|^\/(index\.\w+|home)?$|\/(products?|dp|item|items|collections?|categories|category|c|shop|store|catalog|browse|topics?|tags?|list|lists|archives?|section|sections)(\/|$)/i;

/** Whether the page is of a kind that has no author unless it declares one (read once per page). */
export function unauthored(doc: Doc): boolean {
  return doc.once(read);
}

function read(doc: Doc): boolean {
  const declared = doc.jsonld.flatMap(typesOf);
  if (declared.some((t) => AUTHORED_TYPES.test(t))) return false;
  if (declared.some((t) => UNAUTHORED_TYPES.test(t))) return true;
  const og = doc.meta.byName.get('og:type')?.[0]?.toLowerCase() ?? '';
  if (/^(article|blog|book|profile|video)/.test(og)) return false;
  if (/product/.test(og)) return true;
  if (listsStories(doc)) return true;
  try {
    return UNAUTHORED_PATH.test(new URL(doc.url).pathname);
  } catch {
    return false;
  }
}

/** Where a story's byline names its writer: a link to their page, a byline, an author mark. */
const BYLINES = 'a[href*="/author/" i], a[rel="author"], [class*="byline" i]';
/** Items a list of stories sets its teasers in. */
const TEASER = new Set(['article', 'li']);
/** How many teasers with bylines of different people make a page a list of stories. */
const MANY = 3;

/**
 * Whether the page lists stories by different people: bylines naming three people or more, each in a teaser of its
 * own (an `<article>` or a list item; a story's co-authors share one byline). Its bylines are its stories', not its own.
 */
function listsStories(doc: Doc): boolean {
  const names = new Set<string>();
  const teasers = new Set<Element>();
  for (const el of select(doc.$, BYLINES)) {
    if (/\bugc\b/i.test(el.attribs.rel ?? '') || inChrome(el)) continue;
    let teaser: Element | null = el.parent as Element | null;
    while (teaser && teaser.type === 'tag' && !TEASER.has(teaser.name)) teaser = teaser.parent as Element | null;
    if (teaser?.type !== 'tag' || teasers.has(teaser)) continue;
    const name = doc.$(el).text().replace(/\s+/g, ' ').trim().toLowerCase();
    if (!name || names.has(name)) continue;
    names.add(name);
    teasers.add(teaser);
    if (names.size >= MANY) return true;
  }
  return false;
}

/**
 * Whether the element stands in a part around the page's own content (chrome.ts: readers' comments, whose writers
 * WordPress links `rel="external nofollow ugc"`, a sidebar's or a related list's stories): no list of the page's own.
 */
function inChrome(el: Element): boolean {
  for (let at = el.parent as Element | null; at && at.type === 'tag'; at = at.parent as Element | null) {
    if (chromeName(`${at.attribs.class ?? ''} ${at.attribs.id ?? ''}`)) return true;
  }
  return false;
}

/** A rule that reads the page's body: not on a page of a kind that has no author unless it declares one. */
export const authored =
  (rule: Rule): Rule =>
  (doc) =>
    unauthored(doc) ? undefined : rule(doc);
