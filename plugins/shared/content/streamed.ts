// Content that a page streams in: React's server rendering sends a page's slow parts after its shell, each as a
// hidden `<div hidden id="S:n">` at the end of the body with a script that moves it over its placeholder (a
// `<template id="B:n">` and the loading skeleton after it, or a `<template id="P:n">`). A browser shows the
// streamed part where the placeholder stood; a reader of the HTML saw a hidden element and dropped it, and with it
// the whole of a shop's product (Next.js).

/** The most segments put in place on one page (a page streams a few; each is looked for in the whole page). */
const MAX_SEGMENTS = 200;
/** A streamed segment's id, and a placeholder's. */
const SEGMENT = /^S:\w+$/;
/** React's calls that move a segment over its placeholder: `$RC("B:0","S:0")` (a boundary), `$RS("S:1","P:1")`. */
const MOVES = /\$R([CS])\("([BPS]:\w+)","([BPS]:\w+)"\)/g;

/** Which placeholder each segment replaces, from the page's scripts; a segment not named there keeps its number. */
function placeholders(document: Document): Map<string, string> {
  const at = new Map<string, string>();
  for (const script of document.querySelectorAll('script:not([src])'))
    for (const [, call, a, b] of (script.textContent ?? '').matchAll(MOVES))
      if (call === 'C') at.set(b!, a!);
      else at.set(a!, b!);
  return at;
}

/** Removes a boundary's fallback (the skeleton shown while loading): the nodes after its template up to `<!--/$-->`. */
function dropFallback(template: Element): void {
  for (let next = template.nextSibling; next; ) {
    if (next.nodeType === 8 && (next as Comment).data === '/$') return;
    const after = next.nextSibling;
    next.parentNode?.removeChild(next);
    next = after;
  }
}

/**
 * Puts each streamed segment where the browser shows it, in place: over its placeholder, or, when the page names
 * none that is there, where it stands, no longer hidden.
 */
export function revealStreamed(document: Document): void {
  // Each segment's placeholder is looked for in the whole page: a page of thousands is read as far as the first few.
  const segments = [...(document.body?.querySelectorAll('div[hidden][id]') ?? [])]
    .filter((el) => SEGMENT.test(el.id))
    .slice(0, MAX_SEGMENTS);
  if (!segments.length) return;
  const moves = placeholders(document);
  for (const segment of segments) {
    const id = moves.get(segment.id) ?? segment.id.replace(/^S:/, 'B:');
    const template = document.querySelector(`template[id="${id}"]`);
    if (!template || segment.contains(template)) {
      segment.removeAttribute('hidden');
      continue;
    }
    if (id.startsWith('B:')) dropFallback(template);
    template.replaceWith(...segment.childNodes);
    segment.remove();
  }
}
