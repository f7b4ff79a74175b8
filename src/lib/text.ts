/**
 * Text as stored: without U+0000, which PostgreSQL cannot store and no client means to send. It is
 * removed from input for both databases, so that they hold the same text, and from old SQLite data
 * when it is copied into PostgreSQL.
 */
export function storableText(s: string): string {
  return s.includes('\u0000') ? s.replace(/\u0000/g, '') : s;
}
