/**
 * `open`, the items with `separator` between them, then `close`, as one UTF-8 buffer, each string
 * encoded straight into it. A buffer per item joined by Buffer.concat cost twice as much (1000
 * tasks of tasks/get: 160–190 → 60–90 µs), and one long string, which sending flattens, measures
 * and encodes, three times as much.
 */
export function joinedBytes(open: string, items: readonly string[], separator: string, close: string): Buffer {
  let chars = open.length + close.length + separator.length * items.length;
  for (const item of items) chars += item.length;
  // Room for one byte a character (most text is ASCII) and an eighth more; a string that does not
  // fit (its UTF-8, measured only where up to three bytes a UTF-16 unit might not) grows it first.
  let buf = Buffer.allocUnsafe(chars + (chars >> 3) + 64);
  let at = 0;
  const put = (s: string): void => {
    if (buf.length - at < s.length * 3 && buf.length - at < Buffer.byteLength(s)) {
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + s.length * 3));
      buf.copy(bigger, 0, 0, at);
      buf = bigger;
    }
    at += buf.write(s, at);
  };
  put(open);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) put(separator);
    put(items[i] as string);
  }
  put(close);
  return buf.subarray(0, at);
}
