// Tables in Markdown: turndown rules of our own, read through the DOM every parser has (a table's rows are its `<tr>`
// children and those of its sections). The GFM plugin's table rules read `table.rows`, which linkedom's tables lack,
// keep the service's options in module state, and wrap a table Markdown cannot hold in an editor's own `<div>`.
import type TurndownService from 'turndown';

/** What a table becomes: a GFM table, its HTML (cells holding blocks Markdown cannot put in a cell), or its text. */
type Kind = 'grid' | 'html' | 'text';
interface Table {
  kind: Kind;
  rows: Element[];
  columns: number;
  /** Each column's alignment divider (`---`, `:---`, `---:`, `:---:`). */
  dividers: string[];
}

const SECTIONS = new Set(['THEAD', 'TBODY', 'TFOOT']);
const CELLS = new Set(['TD', 'TH']);
/** Blocks a GFM cell cannot hold: a table with one keeps its HTML. */
const BLOCKS = 'pre, h1, h2, h3, h4, h5, h6, blockquote, hr, ul, ol';
const DIVIDERS: Record<string, string> = { left: ':---', right: '---:', center: ':---:' };

/** A table's own rows, in order (not a nested table's): its `<tr>` children and those of its sections. */
function rowsOf(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (child.tagName === 'TR') rows.push(child);
    else if (SECTIONS.has(child.tagName)) for (const tr of child.children) if (tr.tagName === 'TR') rows.push(tr);
  }
  return rows;
}

const cellsOf = (row: Element) => [...row.children].filter((c) => CELLS.has(c.tagName));
const span = (cell: Element) => Math.max(1, Math.min(100, Number(cell.getAttribute('colspan')) || 1));

/** A cell's alignment, from its `align` attribute or its style's `text-align`. */
function alignOf(cell: Element): string {
  const align = cell.getAttribute('align') ?? /text-align\s*:\s*(\w+)/i.exec(cell.getAttribute('style') ?? '')?.[1];
  return align?.toLowerCase() ?? '';
}

function describe(table: Element): Table {
  const rows = rowsOf(table);
  const kind: Kind =
    rows.length === 0 || (rows.length === 1 && cellsOf(rows[0]!).length <= 1) || table.querySelector('table') !== null
      ? 'text'
      : table.querySelector(BLOCKS) !== null
        ? 'html'
        : 'grid';
  const columns = Math.max(0, ...rows.map((r) => cellsOf(r).reduce((n, c) => n + span(c), 0)));
  // Each column's alignment is the one most of its cells have.
  const dividers = Array.from({ length: columns }, (_, i) => {
    const votes = new Map<string, number>();
    for (const row of rows) {
      const cell = cellsOf(row)[i];
      if (cell) votes.set(alignOf(cell), (votes.get(alignOf(cell)) ?? 0) + 1);
    }
    const [align] = [...votes].sort((a, b) => b[1] - a[1])[0] ?? [''];
    return DIVIDERS[align] ?? '---';
  });
  return { kind, rows, columns, dividers };
}

/** An empty cell, as a cell's rule writes it. */
const EMPTY = '     |';

/** A row of cells as GFM writes it. */
const line = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** A cell's Markdown on one line: its breaks as `<br>`, its pipes escaped, at least three characters wide. */
const cellText = (content: string) => content.trim().replace(/\n+/g, '<br>').replace(/\|/g, '\\|').padEnd(3, ' ');

/** Adds the table rules to a converter (each converter its own facts: nothing outlives a conversion). */
export function tables(service: TurndownService): void {
  const facts = new WeakMap<Element, Table>();
  const tableOf = (node: Node): Table | undefined => {
    let table: Node | null = node;
    while (table && table.nodeName !== 'TABLE') table = table.parentNode;
    if (!table) return undefined;
    let found = facts.get(table as Element);
    if (!found) facts.set(table as Element, (found = describe(table as Element)));
    return found;
  };
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const table = tableOf(node);
      if (table?.kind !== 'grid') return `\n\n${content}\n\n`;
      // Each cell ends its own column (` text |`), so that a row is its cells one after the other.
      return ` ${cellText(content)} |${EMPTY.repeat(span(node as Element) - 1)}`;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const table = tableOf(node);
      if (table?.kind !== 'grid') return `\n\n${content}\n\n`;
      const row = node as Element;
      const filled = cellsOf(row).reduce((n, c) => n + span(c), 0);
      const heading =
        row === table.rows[0] &&
        (row.parentNode?.nodeName === 'THEAD' || cellsOf(row).every((c) => c.tagName === 'TH'));
      return `\n|${content}${EMPTY.repeat(Math.max(0, table.columns - filled))}${heading ? `\n${line(table.dividers)}` : ''}`;
    },
  });
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  service.addRule('tableCaption', { filter: ['caption', 'colgroup', 'col'], replacement: () => '' });
  service.addRule('table', {
    filter: 'table',
    replacement: (content, node) => {
      const table = tableOf(node)!;
      const el = node as Element;
      if (table.kind === 'text') return `\n\n${content}\n\n`;
      if (table.kind === 'html') return `\n\n${el.outerHTML}\n\n`;
      const caption = el.querySelector(':scope > caption')?.textContent?.trim();
      let body = content.replace(/\n+/g, '\n').trim();
      // A table without a heading row gets an empty one: GFM has no table without it.
      if (!/^\|.*\|\n\| :?-{3}/.test(body))
        body = `${line(Array.from({ length: table.columns }, () => '   '))}\n${line(table.dividers)}\n${body}`;
      return `\n\n${caption ? `${caption}\n\n` : ''}${body}\n\n`;
    },
  });
}
