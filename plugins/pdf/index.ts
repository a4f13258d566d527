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
  format: oneOf(['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']).optional(),
  width: length().optional(),
  height: length().optional(),
  landscape: bool().default(false),
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
    .optional(),
  scale: num({ min: 0.1, max: 2 }).default(1),
  printBackground: bool().default(true),
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
    let pdf: Buffer;
    try {
      pdf = await captureSettled(page, () =>
        page.pdf({
          format: o.width || o.height ? undefined : FORMATS[o.format ?? 'a4'],
          width: o.width,
          height: o.height,
          landscape: o.landscape,
          margin,
          pageRanges: o.pageRanges,
          scale: o.scale,
          printBackground: o.printBackground,
        }),
      );
    } catch (err) {
      if (/page range/i.test((err as Error).message)) {
        throw new RefractError(
          'EPAGERANGE',
          `Invalid \`pdf.pageRanges\` "${o.pageRanges}": the document has fewer pages`,
          { cause: err, data: { param: 'pdf.pageRanges' } },
        );
      }
      throw err;
    }
    if (pdf.length > PDF_MAX_BYTES) {
      throw new RefractError(
        'EPDFTOOLARGE',
        `The PDF is ${pdf.length} bytes, above the ${PDF_MAX_BYTES} byte limit; ask for fewer pages or a smaller scale`,
      );
    }
    return store(pdf, 'application/pdf');
  },
});
