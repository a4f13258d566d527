import { getEncoding } from 'encoding-sniffer';

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined;
  }
}

/** The canonical name of an encoding label (`UTF-8` → `utf-8`, `latin1` → `windows-1252`), or the label itself. */
export function encodingOf(label: string): string {
  return decoderFor(label)?.encoding ?? label;
}

/** Whether a body starts with a byte order mark (UTF-8, UTF-16 BE or LE). */
function hasBom(body: Buffer): boolean {
  return (
    (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) ||
    (body[0] === 0xfe && body[1] === 0xff) ||
    (body[0] === 0xff && body[1] === 0xfe)
  );
}

/** The charset label a Content-Type names, if any. */
const labelOf = (contentType: string | undefined): string | undefined =>
  /charset\s*=\s*["']?([\w:.-]+)/i.exec(contentType ?? '')?.[1];

/** Whether a Content-Type names a charset that decoders (and browsers) know. */
export function validCharset(contentType: string): boolean {
  return !!decoderFor(labelOf(contentType));
}

/**
 * Picks the body's character set as browsers do (the WHATWG sniffing algorithm, `encoding-sniffer`): a BOM, then the
 * Content-Type charset, then a `<meta>` declaration in the first 4 kB (a UTF-16 claim in ASCII markup means
 * UTF-8), then UTF-8.
 */
export function sniffCharset(body: Buffer, contentType: string | undefined): string {
  // Without a BOM, a charset the Content-Type names and decoders know decides before any markup would: the scan of
  // the first 4 kB (byte by byte, ~35 us on a small page) would not change the answer.
  const transport = labelOf(contentType);
  const declared = transport && !hasBom(body) ? decoderFor(transport)?.encoding : undefined;
  if (declared) return declared;
  const label = getEncoding(body, { transportLayerEncodingLabel: transport, defaultEncoding: 'utf-8', maxBytes: 4096 });
  return encodingOf(label);
}

/** Decodes a body to text with the sniffed character set. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  return new TextDecoder(sniffCharset(body, contentType)).decode(body);
}
