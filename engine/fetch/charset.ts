const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i;

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

/** The charset label a Content-Type names, if any. */
const labelOf = (contentType: string | undefined): string | undefined => /charset\s*=\s*["']?([\w:.-]+)/i.exec(contentType ?? '')?.[1];

/** Whether a Content-Type names a charset that decoders (and browsers) know. */
export function validCharset(contentType: string): boolean {
  return !!decoderFor(labelOf(contentType));
}

/** Picks the body's character set: BOM, then the Content-Type charset, then a `<meta>` declaration, then UTF-8. */
export function sniffCharset(body: Buffer, contentType: string | undefined): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  const fromHeader = labelOf(contentType);
  if (fromHeader && decoderFor(fromHeader)) return decoderFor(fromHeader)!.encoding;
  const head = body.subarray(0, 4096).toString('latin1');
  const fromMeta = META_CHARSET.exec(head)?.[1];
  if (fromMeta && decoderFor(fromMeta)) {
    const enc = decoderFor(fromMeta)!.encoding;
    // A page served as bytes that claims UTF-16 in ASCII markup cannot really be UTF-16.
    return enc.startsWith('utf-16') ? 'utf-8' : enc;
  }
  return 'utf-8';
}

/** Decodes a body to text with the sniffed character set. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  return new TextDecoder(sniffCharset(body, contentType)).decode(body);
}
