import {
  byAttr as attrOf,
  byJsonLd,
  byMeta,
  byMetaLike,
  byText as textOf,
  firstOf,
  readRule,
  type Doc,
  type Rule,
} from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { REVIEW } from './chrome.ts';
import { toDate } from '../../shared/normalize/date.ts';
import { changedDates, dateInText, labelledDates } from './date-text.ts';
import { shownInstead } from './date-under.ts';
import { localStatement } from './date-zone.ts';
import { dayInAddress } from './date-url.ts';

// A review's date is the review's, not the page's: the element rules read outside reviews.
const byText = (selector: string): Rule => textOf(selector, REVIEW);
const byAttr = (selector: string, attr: string): Rule => attrOf(selector, attr, REVIEW);

/**
 * The rules for the date in their order (docs/metadata.md, "date"): those that name the page's publication, then
 * generic ones in markup, then in the text of named elements; "modified" comes last (below). First the publication's.
 */
const published: Rule[] = [
  byJsonLd('datePublished'),
  byJsonLd('dateCreated'),
  byMetaLike('published_time'),
  byMetaLike('release_date'),
  // A video's upload date: the page's when the page is the video's, else an embedded video's (after the page's own).
  byJsonLd('uploadDate'),
  byAttr('[itemprop="datepublished" i]', 'content'),
  byAttr('[itemprop*="datepublished" i]', 'title'),
  byText('[class*="publish" i]'),
  labelledDates,
];
/** Generic dates stated in markup only (meta tags, attributes), which a reader does not see as written. */
const markup: Rule[] = [
  byMeta('date'),
  byMeta('dc.date'),
  byMeta('dc.date.issued'),
  byMeta('dc.date.created'),
  byMeta('dcterms.date'),
  byMeta('dcterms.created'),
  byMeta('pubdate'),
  byMeta('publishdate'),
  byMeta('publish-date'),
  byMeta('sailthru.date'),
  byMeta('parsely-pub-date'),
  byAttr('[itemprop*="date" i]', 'content'),
  byAttr('[itemprop*="date" i]', 'title'),
  byAttr('time[itemprop*="date" i]', 'datetime'),
  byAttr('time[datetime]', 'datetime'),
  // A forum's post as a web component that carries its time (Reddit's `<shreddit-post created-timestamp>`).
  byAttr('shreddit-post[created-timestamp]', 'created-timestamp'),
];
/** Generic dates in the text of elements named for them. */
const named: Rule[] = [
  byText('[class*="byline" i] time'),
  byText('[class*="byline" i]'),
  byText('[class*="dateline" i]'),
  byText('[id*="date" i]'),
  byText('[class*="date" i]'),
  byText('[id*="publish" i]'),
  byText('[class*="post-meta" i]'),
  byText('[class*="time" i]'),
];
/** Dates of the last change: a page's date only when it shows no other. */
const modified: Rule[] = [
  byJsonLd('dateModified'),
  byMetaLike('modified_time'),
  byMetaLike('updated_time'),
  byAttr('[itemprop*="datemodified" i]', 'content'),
  changedDates,
];

/** A written date that states its time zone (`Z`, `+02:00`, `-0500`). */
export { toDate } from '../../shared/normalize/date.ts';

const ZONED = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([zZ]|[+-]\d{2}:?\d{2})$/;
/** Where structured data states a page's dates. */
const STRUCTURED = ['dateModified', 'datePublished', 'dateCreated', 'uploadDate'].map((key) => byJsonLd(key));

/** The times the page states with their zone in `<time datetime>` (a written date's exact moment, often). */
const zonedTimes: Rule = ({ $ }: Doc) =>
  select($, 'time[datetime]')
    .slice(0, 12)
    .map((el) => el.attribs.datetime);

/**
 * The page's date: the first rule's, except that a date written without its time zone (`2017-07-14`, `12. März
 * 2025`, or `2017-07-14T20:28:07` read as UTC) gives way to a date of the same day that states its zone (JSON-LD
 * `datePublished: 2017-07-14T20:28:07+02:00`, or a `<time datetime>` of the page), the more precise statement of
 * the same moment.
 */
export function pageDate(doc: Doc, lang?: string): string | undefined {
  // The rules' groups in their order, each read once: which group answered says whether only the markup dates the page.
  const pick = (rules: Rule[]) =>
    firstOf(doc, rules, (raw) => {
      const found = toDate(raw, lang);
      return found ? { raw, found } : undefined;
    });
  const fromPublished = pick(published);
  const fromMarkup = fromPublished ? undefined : pick(markup);
  const first = fromPublished ?? fromMarkup ?? pick(named);
  const stated = dayInAddress(doc);
  // A date the page shows only in its text, else the date of its last change.
  if (!first)
    return (
      (stated && atNoon(stated)) ??
      dateInText(doc, (text) => toDate(text, lang)) ??
      firstOf(doc, modified, (v) => toDate(v, lang))
    );
  if (stated && overruled(first.found, first.raw, stated)) return atNoon(stated);
  const under = fromMarkup && shownInstead(doc, first.found, (raw) => toDate(raw, lang));
  if (under) return under;
  const { raw, found } = first;
  if (typeof raw === 'string' && !ZONED.test(raw.trim())) {
    for (const zoned of [
      ...STRUCTURED.map((rule) => readRule(rule, doc)),
      ...((readRule(zonedTimes, doc) as unknown[] | undefined) ?? []),
    ]) {
      const precise = typeof zoned === 'string' && ZONED.test(zoned.trim()) ? toDate(zoned) : undefined;
      if (precise && Math.abs(Date.parse(precise) - Date.parse(found)) < 86_400_000) return precise;
    }
  }
  return localStatement(doc, raw, found, toDate) ?? found;
}

/** A day without its time as a written date is read: at noon UTC, the same day from UTC-11 to UTC+11. */
const atNoon = (day: string) => toDate(`${day}T12:00:00Z`);

/** Whether the day an address states overrules a date found: more than a day apart, or a day apart from a day
 * the page writes without its time (`Tue, 14 Jan 2020` beside `…-20200113`). */
function overruled(found: string, raw: unknown, stated: string): boolean {
  const apart = Math.abs(Date.parse(found.slice(0, 10)) - Date.parse(stated)) / 86_400_000;
  if (apart > 1) return true;
  if (apart !== 1 || typeof raw !== 'string') return false;
  if (!/\d:\d\d/.test(raw)) return true;
  // An instant early in the UTC day after the address's day: that day's evening west of Greenwich (UTC-1 to -10).
  return found.slice(0, 10) > stated && Date.parse(found) - Date.parse(found.slice(0, 10)) < 10 * 3_600_000;
}
