const NUL = /\u0000/g;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as stored, the same on both databases: without U+0000, which PostgreSQL cannot store and
 * no client means to send, and with each lone surrogate (possible in JSON, not in UTF-8) replaced
 * by U+FFFD, as the databases would each do differently (SQLite read one back as three U+FFFD).
 * Applied to input, and to old SQLite data when it is copied into PostgreSQL.
 */
export function storableText(s: string): string {
  let out = s.includes('\u0000') ? s.replace(NUL, '') : s;
  if (/[\uD800-\uDFFF]/.test(out)) out = out.replace(LONE_SURROGATE, '\uFFFD');
  return out;
}

/** Length in Unicode code points (an emoji is one; a lone surrogate is one). */
export function characters(s: string): number {
  return s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

/**
 * Length as the limits count "characters": code points of the NFC form, the closest to what people
 * count without a grapheme table (an emoji or "e" with a combining accent is one).
 */
export function textLength(s: string): number {
  return characters(s.normalize('NFC'));
}

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** The key two names are compared by: trimmed, NFC-normalised, lower-cased ("Café " = "CAFÉ"). */
export function nameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}
