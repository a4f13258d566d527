// Issue 53's item 3, measured: would a learned ranker over the author rules' candidates beat their order?
// Reads both shared sets beside the checkout (../shared/corpus/labelled, ../shared/corpus/wcxb), lists every
// candidate each rule gives a page (plugins/meta/rules/author.ts), and trains a logistic model on where a candidate
// comes from and what it looks like: on one set, tested on the other; and on half a set with the other set, tested on
// the other half. It prints those figures beside the rules' own and the ceiling (a label among the candidates).
// Nothing here runs in the service: docs/metadata.md ("author", "A learned ranker") says what the figures decided.
//   npx node --conditions=refract-source scripts/author-ranker.ts
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseHtml } from '../engine/kernel/html.ts';
import { extractMeta } from '../plugins/meta/index.ts';
import { author, declaredPerson, writtenBy } from '../plugins/meta/rules/author.ts';
import { showsName } from '../plugins/meta/rules/author-jsonld.ts';
import { toAuthor } from '../plugins/shared/normalize/author.ts';
import { createDoc, readRule } from '../plugins/shared/page/helpers.ts';
import { WCXB, wcxbPagesDir } from './wcxb-pages.ts';

const CORPUS = path.resolve(import.meta.dirname, '../../shared/corpus');
type Set = 'labelled' | 'wcxb';
interface Candidate {
  rule: string;
  value: string;
  shown: boolean;
}
interface Page {
  set: Set;
  want: string;
  got: string | null;
  article: boolean;
  candidates: Candidate[];
}

/** The scorers' comparisons: the labelled set's exact (normalised), WCXB's as a set of names. */
const norm = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’‚‛′`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
const people = (s: string) =>
  s
    .split(/\s*(?:;|,|&|\band\b)\s*/)
    .map(norm)
    .filter(Boolean)
    .sort()
    .join('|');
const same = (set: Set, a: string, b: string) => (set === 'labelled' ? norm(a) === norm(b) : people(a) === people(b));
const right = (p: Page, answer: string | null | undefined) =>
  p.want ? !!answer && same(p.set, answer, p.want) : !answer;

function wcxbPages(): { html: string; want: string; id: string }[] {
  const dir = wcxbPagesDir();
  const labels = JSON.parse(gunzipSync(readFileSync(path.join(WCXB, 'labels.json.gz'))).toString('utf8'));
  return labels.map((l: { id: string; author: string | null }) => ({
    id: l.id,
    want: l.author ?? '',
    html: readFileSync(path.join(dir, `${l.id}.html`), 'utf8'),
  }));
}

function labelledPages(): { html: string; want: string; id: string }[] {
  const labels = JSON.parse(readFileSync(path.join(CORPUS, 'labelled/labels.json'), 'utf8'));
  return labels
    .filter((l: { set: string }) => l.set === 'trafilatura')
    .map((l: { id: string; author: string | null }) => ({
      id: l.id,
      want: l.author ?? '',
      html: gunzipSync(readFileSync(path.join(CORPUS, 'labelled/pages', `${l.id}.html.gz`))).toString('utf8'),
    }));
}

/** Every candidate each rule gives (five at most a rule), in the rules' order, and what the rules answer. */
function read(set: Set, page: { html: string; want: string; id: string }): Page {
  const url = `http://127.0.0.1:1/p/${page.id}/`;
  const doc = createDoc(parseHtml(page.html, url), url);
  const candidates: Candidate[] = [];
  const add = (rule: string, value: string | undefined) => {
    if (value) candidates.push({ rule, value, shown: showsName(doc, value.split(/\s*;\s*/)[0]!) });
  };
  add('writtenBy', writtenBy(doc));
  author.forEach((rule, i) => {
    const raw = readRule(rule, doc);
    for (const item of Array.isArray(raw) ? raw.slice(0, 5) : [raw]) {
      try {
        add(`rule${i}`, toAuthor(item, doc));
      } catch {}
    }
  });
  add('declared', declaredPerson(doc));
  const fresh = createDoc(parseHtml(page.html, url), url);
  const got = extractMeta(fresh, { fields: new Set(['author'] as const) }).author as string | null;
  const article = /article/i.test(doc.meta.byName.get('og:type')?.[0] ?? '');
  return { set, want: page.want, got, article, candidates };
}

const RULES = ['writtenBy', ...author.map((_, i) => `rule${i}`), 'declared'];

/** A candidate's features: its rule, its place, how many rules agree on it, whether the page shows it, its shape. */
function features(p: Page): { value: string; x: number[] }[] {
  const values = p.candidates.map((c) => norm(c.value));
  const seen = new Map<string, true>();
  const out: { value: string; x: number[] }[] = [];
  p.candidates.forEach((c, i) => {
    const n = values[i]!;
    if (seen.has(n)) return;
    seen.set(n, true);
    const words = c.value.split(/\s+/).length;
    const rules = new Set(p.candidates.filter((d) => norm(d.value) === n).map((d) => d.rule)).size;
    const x: number[] = RULES.map((r) => (r === c.rule ? 1 : 0));
    x.push(1, i === 0 ? 1 : 0, Math.log1p(i), rules / 5, c.shown ? 1 : 0);
    x.push(words === 1 ? 1 : 0, words === 2 ? 1 : 0, words === 3 ? 1 : 0, words >= 4 ? 1 : 0);
    x.push(c.value === c.value.toLowerCase() ? 1 : 0, /\d/.test(c.value) ? 1 : 0, /[;,&]/.test(c.value) ? 1 : 0);
    x.push(Math.min(c.value.length, 60) / 60, p.article ? 1 : 0, Math.log1p(new Set(values).size));
    out.push({ value: c.value, x });
  });
  return out;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const dot = (w: number[], x: number[]) => x.reduce((s, v, i) => s + v * w[i]!, 0);

/** Logistic regression by gradient descent (L2), every candidate of every page a row. */
function train(pages: Page[]): number[] {
  const rows = pages.flatMap((p) =>
    features(p).map((f) => ({ x: f.x, y: p.want && same(p.set, f.value, p.want) ? 1 : 0 })),
  );
  const w = new Array<number>(rows[0]!.x.length).fill(0);
  for (let step = 0; step < 3000; step++) {
    const g = new Array<number>(w.length).fill(0);
    for (const { x, y } of rows) {
      const e = sigmoid(dot(w, x)) - y;
      for (let i = 0; i < x.length; i++) g[i]! += e * x[i]!;
    }
    for (let i = 0; i < w.length; i++) w[i]! -= 0.5 * (g[i]! / rows.length + 0.01 * w[i]!);
  }
  return w;
}

/** The best-scored candidate, or none under the threshold. */
const answer = (p: Page, w: number[], t: number) => {
  let best: { s: number; value: string } | undefined;
  for (const f of features(p)) {
    const s = sigmoid(dot(w, f.x));
    if (!best || s > best.s) best = { s, value: f.value };
  }
  return best && best.s > t ? best.value : null;
};
const accuracy = (pages: Page[], pick: (p: Page) => string | null | undefined) =>
  (100 * pages.filter((p) => right(p, pick(p))).length) / pages.length;
/** A threshold chosen on the training pages. */
function fit(pages: Page[]) {
  const w = train(pages);
  let best = { a: -1, t: 0.5 };
  for (let t = 0.05; t < 0.95; t += 0.05) {
    const a = accuracy(pages, (p) => answer(p, w, t));
    if (a > best.a) best = { a, t };
  }
  return (p: Page) => answer(p, w, best.t);
}

const sets: Record<Set, Page[]> = {
  labelled: labelledPages().map((p) => read('labelled', p)),
  wcxb: wcxbPages().map((p) => read('wcxb', p)),
};
const f = (n: number) => n.toFixed(1).padStart(5);
for (const [set, pages] of Object.entries(sets) as [Set, Page[]][]) {
  const ceiling = accuracy(pages, (p) => (p.candidates.find((c) => right(p, c.value))?.value ?? null) || null);
  console.log(
    `${set}: the rules ${f(accuracy(pages, (p) => p.got))}%, ceiling of any order of their candidates ${f(ceiling)}%`,
  );
}
for (const [from, to] of [
  ['wcxb', 'labelled'],
  ['labelled', 'wcxb'],
] as [Set, Set][]) {
  const pick = fit(sets[from]);
  console.log(
    `trained on ${from}, tested on ${to}: ranker ${f(accuracy(sets[to], pick))}%, rules ${f(accuracy(sets[to], (p) => p.got))}%`,
  );
}
for (const set of ['labelled', 'wcxb'] as Set[]) {
  const other = sets[set === 'labelled' ? 'wcxb' : 'labelled'];
  const halves = [0, 1].map((h) => sets[set].filter((_, i) => i % 2 === h));
  const ranked = [0, 1].map((h) => accuracy(halves[1 - h]!, fit([...halves[h]!, ...other])));
  const rules = [0, 1].map((h) => accuracy(halves[1 - h]!, (p) => p.got));
  console.log(
    `${set}, half trained with the other set, the other half tested (mean of both ways): ranker ${f((ranked[0]! + ranked[1]!) / 2)}%, rules ${f((rules[0]! + rules[1]!) / 2)}%`,
  );
}
