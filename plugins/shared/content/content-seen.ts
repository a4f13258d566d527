// What a reader of the page sees: what stays unseen until asked (a dialog, a popover, Bootstrap's `d-none`, the
// page's messages) goes, and what a tab or a disclosure shows once chosen is shown.
import { HIDING, hides } from '../page/shown.ts';
import { words } from './content-text.ts';

/**
 * What a reader does not see until asked (a dialog, a modal, a popover: HTML's `popover` element is drawn only when a
 * control opens it): never the page, however long.
 */
const UNSEEN = '[role="dialog"], [role="alertdialog"], [aria-modal="true"], [popover]';
/** A page's messages to its reader (`Loading…`, `No results`, `Something went wrong`): gone unless they hold much of it. */
const MESSAGES = '[role="status"], [role="alert"]';
/** Bootstrap's class that hides an element, and those that show it again from a breakpoint on (`d-md-block`). */
const HIDDEN = '[class~="d-none"]';
const SHOWN_AT =
  /(^|\s)d-(sm|md|lg|xl|xxl)-(block|flex|inline|inline-block|inline-flex|grid|table|table-cell|contents)(\s|$)/;

/**
 * Removes what a reader does not see: a dialog whatever its size (a terms-of-service modal at the end of a shop's page
 * held more words than the product, and was taken for the content, by Readability too); the page's messages and what
 * Bootstrap's `d-none` hides at every width (a menu's submenus, a form's error messages, a stock notice) unless they
 * hold 30% of the page (a page hidden until its script runs, a store of text a script shows in tabs) or a breakpoint
 * shows the hidden part again.
 */
export function dropUnseen(document: Document): void {
  // One query for all three (each query walks the whole page); the page's words are counted only when one is asked.
  let all: number | undefined;
  const much = (el: Element) => words(el.textContent) >= (all ??= words(document.body?.textContent)) * 0.3;
  for (const el of [...(document.body?.querySelectorAll(`${UNSEEN}, ${MESSAGES}, ${HIDDEN}`) ?? [])]) {
    if (!el.isConnected) continue;
    const message = el.matches(MESSAGES);
    if (message && much(el)) continue;
    if (!message && !el.matches(UNSEEN) && (SHOWN_AT.test(el.getAttribute('class') ?? '') || much(el))) continue;
    el.remove();
  }
}

/** Every such declaration of a style, to take off (`replace` starts a global pattern over each time). */
const HIDINGS = new RegExp(HIDING, 'gi');
/** Whether an element is hidden by its `style` attribute (the one test of it for every reader of the content). */
export const hiddenByStyle = (el: Element): boolean => hides(el.getAttribute('style'));

/** The slides of the carousels most sites use (Slick, Swiper, Splide, Glide, Owl, Bootstrap), and what finds them. */
const SLIDE = /(^|\s)(slick-slide|swiper-slide|splide__slide|glide__slide|owl-item|carousel-item)(\s|$)/;
const SLIDES = '[class*="slide"], [class*="-item"]';
/** What a link named for screen readers hides from them: what the others see of it. */
const FACE = 'a[aria-label] [aria-hidden="true"]';
/** The copies a looping carousel adds before and after its slides. */
const CLONE = /(^|\s)(slick-cloned|swiper-slide-duplicate|is-clone|glide__slide--clone|cloned)(\s|$)/;

/**
 * A tab's panel, and what a disclosure control opens (an accordion's answer, a "Read more": the element its
 * `aria-controls` names, with `aria-expanded` saying whether it is open), are the page's content whichever is open when
 * the page loads: a manual's code in each language, a product's specifications, a service page's FAQ answers. Those
 * closed are shown (`hidden`, `aria-hidden`, `display: none` taken off). A dialog one opens stays unseen (dropUnseen
 * runs after).
 */
export function showPanels(document: Document): void {
  const panels = new Set<Element>();
  // A carousel's slides (testimonials, features, a product's pictures) are shown one at a time and all the page's;
  // the copies a looping carousel adds at its ends are no slide of their own. A link named for screen readers
  // (`aria-label`) shows everyone else the face it hides from them: a shelf's stars and count of ratings. (One walk
  // finds all three: a list of class selectors walks the page once each.)
  for (const el of document.body?.querySelectorAll(`[role="tabpanel"], ${SLIDES}, ${FACE}`) ?? []) {
    const names = el.getAttribute('class') ?? '';
    if (el.getAttribute('aria-hidden') === 'true' && el.matches(FACE)) el.removeAttribute('aria-hidden');
    if (el.getAttribute('role') === 'tabpanel') panels.add(el);
    else if (!SLIDE.test(names)) continue;
    else if (CLONE.test(names)) el.remove();
    else panels.add(el);
  }
  for (const panel of controlled(document)) panels.add(panel);
  for (const panel of adjacent(document)) panels.add(panel);
  for (const el of panels) {
    el.removeAttribute('hidden');
    if (el.getAttribute('aria-hidden') === 'true') el.removeAttribute('aria-hidden');
    if (hiddenByStyle(el)) el.setAttribute('style', el.getAttribute('style')!.replace(HIDINGS, '$1'));
  }
}

/**
 * The panels the page's disclosure controls name. An id a page gives twice (a mobile menu's submenus and a FAQ's
 * answers both numbered `content-1`…) names the element of that id that comes next after the control, as the
 * page's script finds it in the part the control stands in; the first of the page otherwise. (One walk in the page's
 * order: linkedom's compareDocumentPosition misplaces elements in different subtrees.)
 */
function* controlled(document: Document): Generator<Element> {
  const first = new Map<string, Element>();
  const waiting = new Set<string>();
  const ids = (control: Element) => (control.getAttribute('aria-controls') ?? '').split(/\s+/).filter(Boolean);
  for (const el of document.body?.querySelectorAll('[id], [aria-expanded][aria-controls]') ?? []) {
    const id = el.getAttribute('id');
    if (id) {
      if (!first.has(id)) first.set(id, el);
      if (waiting.has(id)) {
        waiting.delete(id);
        yield el;
      }
    }
    if (el.hasAttribute('aria-expanded')) for (const name of ids(el)) waiting.add(name);
  }
  // Controls after every element they name: the first of the page.
  for (const name of waiting) {
    const el = first.get(name);
    if (el) yield el;
  }
}

/**
 * The panels of disclosure controls that name none (`<a class="show-hide" aria-expanded="false">Methodology</a>` and
 * the hidden part after it): the element after the control, or after its wrapper when the control is all the wrapper
 * holds. A menu's controls (`aria-haspopup`, `role="menuitem"`) open menus, not content.
 */
function* adjacent(document: Document): Generator<Element> {
  for (const control of document.body?.querySelectorAll('[aria-expanded]:not([aria-controls])') ?? []) {
    if (control.hasAttribute('aria-haspopup') || /menu/.test(control.getAttribute('role') ?? '')) continue;
    let at: Element = control;
    while (!at.nextElementSibling && at.parentElement && at.parentElement.children.length === 1) at = at.parentElement;
    const next = at.nextElementSibling;
    if (next && (next.getAttribute('aria-hidden') === 'true' || next.hasAttribute('hidden') || hiddenByStyle(next)))
      yield next;
  }
}

/** A text that is nothing but a template's expressions (`{{priceAnchor.totalPrice}}`), which the page's script fills. */
const PLACEHOLDER = /^\s*(?:\{\{[^{}]*\}\}\s*)+$/;
/** Where such text is what the page shows: code, and what a form or a script holds. */
const AS_WRITTEN = 'pre, code, kbd, samp, textarea, script, style, template';

/**
 * Removes the texts a client-side template leaves in the markup before its script runs (Vue, Angular, Handlebars:
 * `{{priceAnchor.priceWrapper.info.totalPrice}}`): a reader sees the value, never the expression (an app hides them
 * until then: `v-cloak`, `ng-cloak`). Code keeps them: a template language's manual writes them to be read.
 */
export function dropPlaceholders(document: Document): void {
  if (!document.body) return;
  const found: Text[] = [];
  const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (PLACEHOLDER.test((node as Text).data) && !node.parentElement?.closest(AS_WRITTEN)) found.push(node as Text);
  for (const node of found) node.remove();
}
