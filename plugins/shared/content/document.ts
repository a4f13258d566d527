// The page as a browser builds it, before linkedom reads it: the tags HTML lets a page leave out put back, a frameset
// given a body, how deep a tree nests, and forms that are wrappers (what a reader sees of it: content-seen.ts).
import { parse, serialize } from 'parse5';
import { parseHtml } from '../../../engine/index.ts';

/** A document that writes out its `<html>`, `<head>` and `<body>` start tags (any attributes), as nearly every page does. */
function writesTags(html: string): boolean {
  const at = html.search(/<html[\s>]/i);
  if (at < 0) return false;
  const head = /<head[\s>]/gi;
  head.lastIndex = at;
  if (!head.test(html)) return false;
  const body = /<body[\s>]/gi;
  body.lastIndex = head.lastIndex;
  return body.test(html);
}

/**
 * A `<![CDATA[` outside script, style, SVG and MathML: a browser reads it as a comment that ends at the next `>`,
 * linkedom as a section that runs to `]]>`, or to the end of the page (a forum's whole thread went missing).
 */
function strayCdata(html: string): boolean {
  if (!html.includes('<![CDATA[')) return false;
  return html.replace(/<(script|style|svg|math)[\s>][\s\S]*?<\/\1\s*>/gi, '').includes('<![CDATA[');
}

/**
 * The page as a browser builds it: HTML5 lets a page leave out `<html>`, `<head>` and `<body>` (and a fragment has
 * none), which linkedom does not put back (such a page had no body, and no content). Those are parsed with the
 * HTML5 algorithm (parse5, which inserts the missing elements as browsers do) and written out whole; a page that
 * writes its tags out is read as it is.
 */
export function wholeDocument(html: string): string {
  if (/<frameset[\s>]/i.test(html)) return framesDocument(html);
  if (writesTags(html) && !strayCdata(html)) return html;
  try {
    return serialize(parse(html));
  } catch (err) {
    // parse5 writes a tree out recursively: one nested past the stack is bounded first, as the engine's parse does.
    if (!(err instanceof RangeError)) throw err;
    return serialize(parse(parseHtml(html).html()));
  }
}

/** Whether elements nest deeper than `max` under `root`: a walk of the tree without recursion. */
export function deeperThan(root: Element | null, max: number): boolean {
  let node = root;
  let depth = 0;
  while (node) {
    if (depth > max) return true;
    const child = node.firstElementChild;
    if (child) {
      node = child;
      depth++;
      continue;
    }
    // Up to the nearest ancestor with a next sibling (never above the root).
    while (node && node !== root && !node.nextElementSibling) {
      node = node.parentElement;
      depth--;
    }
    node = node && node !== root ? node.nextElementSibling : null;
  }
  return false;
}

/**
 * A frameset page has no body: what it shows are its frames. Its content is what it offers a reader without
 * frames (`<noframes>`) and a link to each frame, in a body of its own.
 */
function framesDocument(html: string): string {
  const head = /<head[\s>][\s\S]*?<\/head>/i.exec(html)?.[0] ?? '';
  const noframes = /<noframes[^>]*>([\s\S]*?)<\/noframes>/i.exec(html)?.[1] ?? '';
  const links = [...html.matchAll(/<frame\s[^>]*?src\s*=\s*["']?([^"'\s>]+)[^>]*>/gi)].map(
    (m) => `<li><a href="${m[1]}">${m[1]}</a></li>`,
  );
  return `<!doctype html><html>${head}<body>${noframes}${links.length ? `<ul>${links.join('')}</ul>` : ''}</body></html>`;
}

/** Whether a page writes more `<html>`, `<head>` or `<body>` start tags than one of each. */
function nestsDocuments(markup: string): boolean {
  const tag = /<(?:html|head|body)[\s>]/gi;
  let count = 0;
  while (tag.test(markup)) if (++count > 3) return true;
  return false;
}

/**
 * Content written after `</body>` (or beside it) goes into the body, as a browser's parser puts it: linkedom leaves
 * it under `<html>`, where the body's readers never see it (and Readability failed on it). A whole document written
 * inside the body (a shop's page that embeds an application's server-rendered page, `<!DOCTYPE html><html><head>`
 * and all) is its content in place, as a browser reads it: linkedom kept the inner `<html>`, `<head>` and `<body>`
 * as elements, and the inner head swallowed what followed it.
 */
export function adoptStrays(document: Document, markup: string): void {
  const html = document.documentElement;
  const body = document.body;
  if (!html || !body) return;
  for (const node of [...html.childNodes]) {
    if (node === body || (node as Element).tagName === 'HEAD') continue;
    if (node.nodeType === 1 || (node.nodeType === 3 && node.textContent?.trim())) body.appendChild(node);
  }
  if (!nestsDocuments(markup)) return;
  for (const inner of [...body.querySelectorAll('html, head, body')]) {
    for (const title of inner.tagName === 'HEAD' ? [...inner.querySelectorAll('title')] : []) title.remove();
    inner.replaceWith(...inner.childNodes);
  }
}

/** A field a reader fills in or presses: what makes a `<form>` a form. */
const FIELDS = 'input:not([type="hidden"]), textarea, select, button';

/**
 * A `<form>` with nothing to fill in or press is a wrapper (Reddit writes each comment's text in one, for its
 * author to edit it in place): it becomes a `<div>` with its class and id, which the rules for forms (a sign-up, a
 * search box: the site's) then leave alone.
 */
export function unwrapFieldless(document: Document): void {
  for (const form of [...document.querySelectorAll('form')]) {
    if (form.querySelector(FIELDS)) continue;
    const div = document.createElement('div');
    for (const name of ['class', 'id']) {
      const value = form.getAttribute(name);
      if (value !== null) div.setAttribute(name, value);
    }
    div.append(...form.childNodes);
    form.replaceWith(div);
  }
}
