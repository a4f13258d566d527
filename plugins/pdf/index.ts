import { PDFDocument } from 'pdf-lib';
import { captureSettled, definePlugin, options, bool, num, oneOf, text, z, RefractError } from '../../engine/index.ts';

/** PDFs larger than this are refused with EPDFTOOLARGE (documented in docs/errors.md). */
export const PDF_MAX_BYTES = 50 * 1024 * 1024;

const CSS_LENGTH = /^\d+(\.\d+)?(px|in|cm|mm)?$/;
const length = () =>
  text()
    .refine((v) => CSS_LENGTH.test(v.trim()), { error: 'expected a CSS length such as 210mm, 8.5in or 800px' })
    .meta({ description: 'A CSS length: a number with px, in, cm or mm.', examples: ['210mm', '8.5in', '800px'] });
const RANGES = /^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/;

const params = options({
  format: oneOf(['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'])
    .optional()
    .describe('Paper format (a4 unless width or height is given).'),
  width: length().optional().describe('Paper width as a CSS length.'),
  height: length().optional().describe('Paper height as a CSS length.'),
  landscape: bool().default(false).describe('Print in landscape orientation.'),
  margin: z
    .union([
      length(),
      options({
        top: length().optional(),
        bottom: length().optional(),
        left: length().optional(),
        right: length().optional(),
      }),
    ])
    .optional(),
  pageRanges: text()
    .refine((v) => RANGES.test(v), { error: 'expected pages and intervals such as 1-3,5' })
    .optional()
    .describe('Pages to keep, such as `1-3,5`; EPAGERANGE past the last page.'),
  scale: num({ min: 0.1, max: 2 }).default(1).describe('Rendering scale, 0.1 to 2.'),
  printBackground: bool().default(true).describe('Print background colours and images.'),
});

const FORMATS: Record<string, string> = {
  letter: 'Letter',
  legal: 'Legal',
  tabloid: 'Tabloid',
  ledger: 'Ledger',
  a0: 'A0',
  a1: 'A1',
  a2: 'A2',
  a3: 'A3',
  a4: 'A4',
  a5: 'A5',
  a6: 'A6',
};

/** A PDF's number of pages (pdf-lib reads its page tree), or undefined when it cannot be read. */
async function pageCount(pdf: Buffer): Promise<number | undefined> {
  try {
    return (await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount();
  } catch {
    return undefined;
  }
}

/** Prints the rendered page to PDF (paper format or size, orientation, margins, page ranges, scale) and stores it. */
export default definePlugin({
  name: 'pdf',
  description: 'A PDF of the rendered page with paper format, margins, page ranges and scale.',
  needs: 'browser',
  invalid: { pageRanges: 'EPAGERANGE' },
  params,
  async run({ page, store }, o) {
    if (!page) throw new Error('pdf needs a browser page');
    const margin =
      typeof o.margin === 'string' ? { top: o.margin, bottom: o.margin, left: o.margin, right: o.margin } : o.margin;
    const print = (pageRanges?: string) =>
      captureSettled(page, () =>
        page.pdf({
          format: o.width || o.height ? undefined : FORMATS[o.format ?? 'a4'],
          width: o.width,
          height: o.height,
          landscape: o.landscape,
          margin,
          pageRanges,
          scale: o.scale,
          printBackground: o.printBackground,
        }),
      );
    let pdf: Buffer;
    try {
      pdf = await print(o.pageRanges);
    } catch (err) {
      if (!/page range/i.test((err as Error).message)) throw err;
      // The answer says how many pages there are: the document is printed whole to count them.
      const pages = await pageCount(await print());
      throw new RefractError(
        'EPAGERANGE',
        `Invalid \`pdf.pageRanges\` "${o.pageRanges}": the document has ${pages ?? 'fewer'} page${pages === 1 ? '' : 's'}`,
        { cause: err, data: { param: 'pdf.pageRanges', ...(pages ? { pages } : {}) } },
      );
    }
    if (pdf.length > PDF_MAX_BYTES) {
      throw new RefractError(
        'EPDFTOOLARGE',
        `The PDF is ${pdf.length} bytes, above the ${PDF_MAX_BYTES} byte limit; ask for fewer pages or a smaller scale`,
      );
    }
    const pages = await pageCount(pdf);
    return { ...(await store(pdf, 'application/pdf')), ...(pages ? { pages } : {}) };
  },
});
