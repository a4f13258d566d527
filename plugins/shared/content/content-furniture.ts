// The furniture of an article inside the container the main-content rules chose (content.ts): its pictures'
// captions, credits and duplicates, label lines (ads, comments, more stories, reading time), bylines and
// copyright lines at its edges.
import { words, type El } from './content-text.ts';
import { BLOCKS, emphasised, nextContent } from './content-blocks.ts';

/**
 * Images that belong to the content stay, once each, without their captions and credits; decorative ones (an
 * empty alt), tracking pixels, linked thumbnails (teasers of other pages) and inline data go.
 */
export function images(root: El): void {
  const seen = new Set<string>();
  // An alt text that several images share was written for none of them (the page's title, "image"): no description.
  const alts = new Map<string, Set<string>>();
  for (const img of root.querySelectorAll('img[alt]')) {
    const alt = img.getAttribute('alt')!.trim();
    if (alt) alts.set(alt, (alts.get(alt) ?? new Set()).add(img.getAttribute('src') ?? ''));
  }
  for (const img of [...root.querySelectorAll('img')]) {
    const src = img.getAttribute('src') ?? '';
    // A link to the picture's own file (a larger size: a lightbox) is the picture, not a teaser of another page.
    const link = img.closest('a');
    if (
      link &&
      root.contains(link) &&
      IMAGE_FILE.test(link.getAttribute('href') ?? '') &&
      words(link.textContent) === 0
    )
      link.replaceWith(...link.childNodes);
    const tiny = Number(img.getAttribute('width') ?? 99) <= 2 || Number(img.getAttribute('height') ?? 99) <= 2;
    if (img.closest('a') || !src || seen.has(src) || /^data:/.test(src) || img.getAttribute('alt') === '' || tiny) {
      (img.closest('picture') ?? img).remove();
      continue;
    }
    seen.add(src);
    // A file name is no description ("airpods-pro-2.jpg", "010_Clymer-2").
    const alt = (img.getAttribute('alt') ?? '').trim();
    if (
      /^[\w.-]+\.(jpe?g|png|gif|webp|avif|svg)$/i.test(alt) ||
      (/^[\p{L}\p{N}_.-]+$/u.test(alt) && /[_\d]/.test(alt)) ||
      (alts.get(alt)?.size ?? 0) > 1
    )
      img.setAttribute('alt', '');
    // The image's box: its largest ancestor with little text of its own; that text is a caption or a credit.
    let box: El = img;
    while (
      box.parentElement &&
      box.parentElement !== root &&
      words(box.parentElement.textContent) <= 40 &&
      box.parentElement.querySelectorAll('img').length === 1
    )
      box = box.parentElement;
    // A caption set as its own line in italics right under the picture ("*Kate Henshaw*").
    const after = nextContent(box, root);
    if (after?.tagName === 'P' && words(after.textContent) <= 30 && emphasised(after)) after.remove();
    if (box === img) continue;
    for (const child of [...box.querySelectorAll('*')])
      if (root.contains(child) && !child.querySelector('img') && child.tagName !== 'IMG' && child.tagName !== 'SOURCE')
        child.remove();
    for (const node of [...box.childNodes]) if (node.nodeType === 3) node.remove();
  }
}

/** The whole text of a line that labels the site around an article (ads, comments, more stories, reading time). */
const LABEL =
  /^(advert|advertisement|advertising|ads?|sponsored( content)?|anzeige|werbung|publicidad|publicité|pubblicità|reklama|реклама|iklan|\d* ?comments?|post (a )?comment.*|leave a (comment|reply)|tell us what you think.*|updated|you (may|might) also like.*|related( news| articles| stories| posts| content)?|more( stories| news| from( the)? \S+( \S+)?)?|recent (articles|posts|news|stories)|popular( now| this week)?|most (read|popular)|trending( now)?|don'?t miss( this| these| out)?|subscribe( now)?|want more stories like this|(reading time|read time|tempo de leitura|lesezeit|temps de lecture)\b.*|filed under\b.*|share( this)?( article| story| post)?|(did you )?(like|enjoy|enjoyed|love)( reading)? this (story|article|post)\b.*|share (it|this) with (a friend|friends|your friends)\b.*|(this |the )?(slideshow|gallery|video|player|content|page|site|feature|form) requires javascript\b.*|(please )?(enable|turn on) javascript\b.*|javascript (is )?(required|disabled)\b.*|read more|see also)$/i;

/** A credit line of a picture or a story: a short line naming where it came from. */
const CREDIT =
  /^\(?(image|images|photo|photos|foto|fotos|picture|credit|credits|source|quelle|fuente|fonte|crédit|bild)\s*[:：]|©|\bgetty images\b|\bshutterstock\b|^(reuters|ap|afp|dpa|efe|ansa|associated press)$/i;

/** The end of a picture's caption: its credit in parentheses, "(AP Photo/Jane Doe, File)", "(Photo: Reuters)". */
const CAPTION_END =
  /\((?:\p{Lu}[\p{L}.&-]*\s+){0,3}(?:[Ff]ile\s+)?(?:[Pp]hotos?|PHOTOS?|[Ff]otos?|FOTOS?|[Ii]mages?|IMAGES?|[Pp]ictures?)(?:\s*(?:[/:]|by\b|[Cc]redit\b)[^()]*)?\)\s*$/u;

/** True when a short line's whole text is a label of the site around the article. */
function isLabel(line: string): boolean {
  const text = line.replace(/\s+/g, ' ').replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
  return words(text) <= 8 && (LABEL.test(text) || CREDIT.test(text));
}

/** A URL of an image file. */
const IMAGE_FILE = /\.(jpe?g|png|gif|webp|avif)([?#]|$)/i;

const DATE = /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(19|20)\d{2}\b/;
/** A writer's one-line bio: "Jane Doe is a freelance writer living in ...", "Eric Song is IGN's deal curator". */
const AUTHOR_BIO =
  /^[*_]*\p{Lu}[\p{L}.'-]+(?: \p{Lu}[\p{L}.'-]+){0,3} is (?:a|an|the|\p{Lu}\S*['’]s)\b[^.]{0,80}\b(?:writer|editor|reporter|journalist|correspondent|contributor|columnist|curator|blogger|author|producer|freelancer)s?\b/u;

/** Removes short lines (a few children, a few hundred characters) that are a label, or a caption that ends with its credit. */
export function labelLines(root: El): void {
  for (const el of [...root.querySelectorAll(`${BLOCKS}, div`)]) {
    if (el.children.length > 3 || !root.contains(el)) continue;
    const text = el.textContent ?? '';
    if (text.length > 400 || el.querySelector(`${BLOCKS}, div, img`)) continue;
    if (isLabel(text) || (words(text) <= 60 && CAPTION_END.test(text))) el.remove();
  }
}

/**
 * Lines of an article's furniture at its edges: a byline or a dateline (short, with a date or time) among its first
 * blocks, a copyright or an address line among its last.
 */
export function furnitureLines(root: El): void {
  const leaves = [...root.querySelectorAll(`${BLOCKS}, div`)].filter(
    (el) => !el.querySelector(`${BLOCKS}, div`) && words(el.textContent) > 0,
  );
  for (const el of leaves.slice(0, 4)) {
    const n = words(el.textContent);
    if (n <= 14 && DATE.test(el.textContent ?? '') && !/^H[1-6]$/.test(el.tagName)) el.remove();
  }
  const last = leaves.slice(-4);
  for (const [i, el] of last.entries()) {
    const text = el.textContent ?? '';
    // A bio only as one of the last two lines: higher up, "... is a writer" is more likely the story's own words.
    if (
      words(text) <= 40 &&
      (/©|\(c\)\s*\d{4}|copyright/i.test(text) || (i >= last.length - 2 && AUTHOR_BIO.test(text.trim())))
    )
      el.remove();
  }
  // An editor's note at either edge: a paragraph all in emphasis with a link in it (a disclosure, "subscribe to...").
  for (const el of [...leaves.slice(0, 3), ...leaves.slice(-3)]) {
    if (
      root.contains(el) &&
      el.querySelector('a') &&
      !/^(H[1-6]|TABLE)$/.test(el.tagName) &&
      emphasised(el, 'em, i, strong, b, a')
    )
      el.remove();
  }
}
