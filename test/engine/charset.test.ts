import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { getEncoding } from 'encoding-sniffer';
import { decodeBody, encodingOf, sniffCharset } from '../../engine/fetch/charset.ts';

// What the WHATWG sniffing algorithm (encoding-sniffer, scanning the whole prefix) answers, in decoders' names.
const sniffed = (body: Buffer, contentType: string | undefined) => {
  const label = /charset\s*=\s*["']?([\w:.-]+)/i.exec(contentType ?? '')?.[1];
  return encodingOf(
    getEncoding(body, { transportLayerEncodingLabel: label, defaultEncoding: 'utf-8', maxBytes: 4096 }),
  );
};

const LABELS = [
  'utf-8',
  'UTF8',
  'latin1',
  'iso-8859-1',
  'windows-1251',
  'shift_jis',
  'euc-kr',
  'utf-16le',
  'utf-16',
  'gbk',
  'x-user-defined',
  'iso-2022-kr',
  'nonsense',
  '',
];
const BOMS = [[], [0xef, 0xbb, 0xbf], [0xfe, 0xff], [0xff, 0xfe]];

test('the Content-Type charset short cut answers what the full scan answers, BOMs, meta tags and odd labels included', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...BOMS),
      fc.constantFrom(...LABELS),
      fc.constantFrom(...LABELS),
      fc.constantFrom('', 'text/html', 'text/html; charset='),
      fc.string({ maxLength: 40 }),
      (bom, metaLabel, headerLabel, type, text) => {
        const meta = metaLabel ? `<meta charset="${metaLabel}">` : '';
        const body = Buffer.concat([
          Buffer.from(bom),
          Buffer.from(`<!doctype html><html><head>${meta}<title>${text}</title></head></html>`),
        ]);
        const contentType = type.endsWith('=') ? `${type}${headerLabel}` : type || undefined;
        assert.is(sniffCharset(body, contentType), sniffed(body, contentType), `${bom} ${contentType} ${meta}`);
      },
    ),
    { numRuns: 500 },
  );
});

test('a declared charset decodes the body; a BOM still wins over it', () => {
  const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
  assert.is(decodeBody(cyrillic, 'text/html; charset=windows-1251'), 'Привет');
  assert.is(sniffCharset(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 'text/html; charset=windows-1251'), 'utf-8');
  assert.is(sniffCharset(Buffer.from('<meta charset="shift_jis">'), 'text/html; charset=utf-8'), 'utf-8');
  assert.is(sniffCharset(Buffer.from('<meta charset="shift_jis">'), 'text/html'), 'shift_jis');
});

test.run();
