/**
 * Text as stored: without U+0000, which PostgreSQL cannot store and no client means to send. It is
 * removed from input for both databases, so that they hold the same text, and from old SQLite data
 * when it is copied into PostgreSQL.
 */
export function storableText(s: string): string {
  return s.includes('\u0000') ? s.replace(/\u0000/g, '') : s;
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
