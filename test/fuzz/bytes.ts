/**
 * Text to bytes as a sloppy client writes it: lone surrogates become the three bytes a naive
 * encoder emits for them (ED A0 80 for U+D800), which is not valid UTF-8. Buffer.from(s, 'utf8')
 * and encodeURIComponent would replace them or throw, and the server would never see them.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);

function surrogateBytes(cu: number): Buffer {
  return Buffer.from([0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)]);
}

/** Splits text at its lone surrogates: well-formed pieces, each followed by one lone surrogate (or none). */
function pieces(s: string): Array<[string, number | undefined]> {
  const out: Array<[string, number | undefined]> = [];
  let at = 0;
  for (const m of s.matchAll(LONE_SURROGATE)) {
    out.push([s.slice(at, m.index), s.charCodeAt(m.index)]);
    at = m.index + 1;
  }
  out.push([s.slice(at), undefined]);
  return out;
}

export function looseUtf8(s: string): Buffer {
  if (!HAS_LONE_SURROGATE.test(s)) return Buffer.from(s, 'utf8');
  return Buffer.concat(pieces(s).flatMap(([text, cu]) => (cu === undefined ? [Buffer.from(text, 'utf8')] : [Buffer.from(text, 'utf8'), surrogateBytes(cu)])));
}

function hex(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** Percent-encoding of looseUtf8 bytes: lone surrogates arrive as %ED%A0%80. */
export function percentEncode(s: string): string {
  if (!HAS_LONE_SURROGATE.test(s)) return encodeURIComponent(s);
  return pieces(s)
    .map(([text, cu]) => encodeURIComponent(text) + (cu === undefined ? '' : hex(surrogateBytes(cu))))
    .join('');
}
