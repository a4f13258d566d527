// The content of a page that is not one article (a forum thread, a product, a listing, a service page, a home page):
// its body without the site around it. Readability keeps one container, which on these pages is one post, one card
// or one section; here the page's own landmarks and the names of its parts decide what goes instead.
import { createCounts, linkDensity, words, type El } from './content-text.ts';
import { kindParts } from './content-kind-parts.ts';
import { dropNamed } from './content-named.ts';
import type { PageKind } from './content-kind.ts';
import { hiddenByStyle } from './content-seen.ts';

/** Markup that is never content. */
const NEVER = 'script, style, template, iframe, svg, canvas, button, input, select, textarea, option, dialog';
/** The fields of a form that signs a reader up or in. */
const ASKS = 'input[type="email"], input[type="password"], input[name*="email" i], input[autocomplete="email"]';
/** Landmarks and parts of the site around the content. */
const AROUND =
  'header, footer, aside, nav, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="menu"], [role="menubar"]';
/** The site's footer: never the page, however much of it is left (a script shell's only text). */
const FOOT = 'footer, [role="contentinfo"]';
/**
 * What a page shows a reader whose browser runs no script: an application page (Discourse, Flarum) writes its content
 * for such readers inside `<noscript>`, the rest of its body an empty shell. A `<noscript>` that holds more words than
 * everything outside it is read as content; any other (a tracking pixel, "enable JavaScript") is dropped.
 */
export function readNoscript(body: El): void {
  const blocks = [...body.getElementsByTagName('noscript')];
  if (!blocks.length) return;
  const inside = blocks.map((el) => words(noscriptText(el)));
  const outside = words(body.textContent) - inside.reduce((s, n) => s + n, 0);
  blocks.forEach((el, i) => {
    if (inside[i]! >= 50 && inside[i]! > outside) {
      // A parser that reads `<noscript>` as text (scripting on) leaves its markup as one text node: parse it.
      if (el.children.length === 0 && /<\w/.test(el.textContent ?? '')) el.innerHTML = el.textContent ?? '';
      el.replaceWith(...el.childNodes);
    } else el.remove();
  });
}

const noscriptText = (el: El) => (el.children.length ? el.textContent : el.textContent?.replace(/<[^>]*>/g, ' ')) ?? '';

/**
 * The content of a page that is not one article, in place: the body (or its one `<main>` when that holds most of the
 * text) without script, the site's landmarks (header, footer, navigation, asides), parts named as the site's (cookie
 * notices, newsletters, share bars, breadcrumbs) and menus (lists that are all links).
 */
export function pageBody(document: Document, kind?: PageKind): El | undefined {
  const body = document.body as El | null;
  if (!body) return undefined;
  // A form that asks for an address or a password (a newsletter's sign-up, a log-in) is the site's, with its consent
  // text and its messages (`Thanks for subscribing!`), unless it holds much of the page (a page inside one form).
  // The page's words are counted only when it has such a form.
  let whole: number | undefined;
  for (const form of [...body.querySelectorAll('form')])
    if (form.querySelector(ASKS) && words(form.textContent) < (whole ??= words(body.textContent)) * 0.3) form.remove();
  for (const el of body.querySelectorAll(NEVER)) el.remove();
  // Hidden by its style: a reader never sees it (a menu's panel, a template, a tab's copy for another device), unless
  // it holds most of the page, which a script shows once the page has loaded (a shop's collection behind its gate).
  const shown = words(body.textContent);
  const hidden = [...body.querySelectorAll('[style]')].filter(
    (el) => hiddenByStyle(el) && words(el.textContent) < shown * 0.5,
  );
  // An accordion drawn without ARIA: three or more hidden parts of text, each right after its visible title.
  const panels = hidden.filter((el) => {
    const title = el.previousElementSibling;
    if (!title || hiddenByStyle(title)) return false;
    const n = words(title.textContent);
    return n >= 1 && n <= 20 && words(el.textContent) >= 30 && linkDensity(el) < 0.3;
  });
  const open = new Set(panels.length >= 3 ? panels : []);
  for (const el of hidden) if (!open.has(el)) el.remove();
  readNoscript(body);
  const all = words(body.textContent);
  let root: El = body;
  const mains = [...body.querySelectorAll('main, [role="main"]')].filter(
    (el) => !el.parentElement?.closest('main, [role="main"]'),
  );
  if (mains.length === 1 && words(mains[0]!.textContent) >= all * 0.5) root = mains[0]!;
  for (const el of [...root.querySelectorAll(`${AROUND}, [hidden], [aria-hidden="true"]:not(a)`)]) {
    // A landmark that holds most of the page is the page (a whole site inside one `<header>` or `<form>`), unless it
    // is mostly links (a mega menu in the header).
    if (!root.contains(el) || cardHeader(el)) continue;
    if (el.matches(FOOT) || words(el.textContent) < words(root.textContent) * 0.5 || linkDensity(el) > 0.5) el.remove();
  }
  dropNamed(root, kind);
  if (kind !== 'forum') beforeHeading(root);
  kindParts(root, kind);
  const counts = createCounts();
  for (const el of [...root.querySelectorAll('ul, ol')]) {
    // A menu: a list of short links (a listing's card has more words), never in a tab's panel (a town's forms).
    if (!root.contains(el) || el.closest('[role="tabpanel"]')) continue;
    const items = el.children.length;
    if (items >= 3 && counts.density(el) > 0.9 && counts.words(el) / items < 6) {
      el.remove();
      counts.changed();
    }
  }
  return root;
}

/**
 * A `<header>` that holds (nearly) all of its `<article>`'s words is that article drawn as a card (a news river's
 * headline, teaser and byline written in each card's header), not the site's.
 */
function cardHeader(el: El): boolean {
  if (el.tagName !== 'HEADER') return false;
  const card = el.parentElement?.closest('article');
  return !!card && words(el.textContent) >= words(card.textContent) * 0.8;
}

/** The content starts at the page's one `<h1>`: what stands before it (a utility bar, alerts, an app's promotion, a
 * menu outside landmarks) goes, where it is under 40% of the page. Not on a thread (its `<h1>` may be a post's). */
function beforeHeading(root: El): void {
  const headings = root.querySelectorAll('h1');
  if (headings.length !== 1) return;
  const before: El[] = [];
  for (let el: El = headings[0]!; el !== root && el.parentElement; el = el.parentElement)
    for (let prior = el.previousElementSibling; prior; prior = prior.previousElementSibling) before.push(prior);
  const held = before.reduce((n, el) => n + words(el.textContent), 0);
  if (held < words(root.textContent) * 0.4) for (const el of before) el.remove();
}
