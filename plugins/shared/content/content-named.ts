// The parts of a page named as the site's (content-prune.ts: share bars, newsletters, sidebars, widgets), removed from
// a page read whole (content-page.ts) unless the parts of one name are the page's content, repeated.
import { words, type El } from './content-text.ts';
import { nameOf } from './content-prune.ts';
import { discussion, replies } from './content-comments.ts';
import type { PageKind } from './content-kind.ts';

/**
 * Removes the parts named as the site's (content-prune.ts), each under a third of the page, unless the parts one name
 * marks hold half the page together: they are its content, repeated (a page builder's widgets, a thread's posts named
 * `comment`; readers' comments are a thread's content, and a discussion's (content-comments.ts), never another page's).
 */
export function dropNamed(root: El, kind: PageKind | undefined): void {
  const total = words(root.textContent);
  const marked = new Map<string, El[]>();
  const size = new Map<El, number>();
  // The outermost parts named comments, whatever their size, and whether they are the page (read once, when asked).
  const talking: El[] = [];
  let talk: boolean | undefined;
  for (const el of root.querySelectorAll('[class], [id]')) {
    const name = nameOf(el);
    if (name && /^comments?$/.test(name) && !talking.some((up) => up.contains(el))) talking.push(el);
    if (!name) continue;
    // A widget inside a tab's panel (showPanels) is a page builder's block of that panel, never a sidebar's.
    if (/^widgets?$/.test(name) && el.closest('[role="tabpanel"]')) continue;
    size.set(el, words(el.textContent));
    const same = marked.get(name);
    if (same) same.push(el);
    else marked.set(name, [el]);
  }
  const small = (el: El) => size.get(el)! < total * 0.3;
  for (const [name, named] of marked) {
    const els = named.filter(small);
    const all = new Set(els);
    const outer = els.filter((el) => {
      for (let up = el.parentElement; up; up = up.parentElement) if (all.has(up)) return false;
      return true;
    });
    // A part of a third of the page or more stays; it counts with the others of its name when it stands among them
    // (a page builder's FAQ block in its sequence of blocks), not when it wraps them.
    const parents = new Set(outer.map((el) => el.parentElement));
    const beside = named.filter((el) => !small(el) && parents.has(el.parentElement));
    const held = [...outer, ...beside].reduce((n, el) => n + size.get(el)!, 0);
    const comments = /^comments?$/.test(name);
    // A thread's replies named comments are its posts, whatever share of the page they hold.
    if (comments && kind === 'forum' && replies(root, els)) continue;
    const theirs = comments && kind !== 'forum' && !(talk ??= discussion(talking, total));
    if (!theirs && outer.length >= 3 && held >= total * 0.5) continue;
    for (const el of els) if (root.contains(el)) el.remove();
  }
}
