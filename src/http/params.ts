import type { FastifyRequest } from 'fastify';

/**
 * Request parameters, read from the query string and the body together for every method (clients
 * of the hosted service put them in either place). When a name is in both, the body wins, as in
 * the PHP service; when a name repeats, the last value wins.
 */
export class Params {
  /** Sources in priority order: the first that has a usable value for a name wins. */
  private constructor(private readonly sources: ReadonlyArray<Readonly<Record<string, unknown>>>) {}

  /** Later sources win over earlier ones (Params.from(query, body): the body wins). */
  static from(...sources: unknown[]): Params {
    const usable = sources.filter(
      (s): s is Record<string, unknown> => s !== null && typeof s === 'object' && !Array.isArray(s) && !Buffer.isBuffer(s),
    );
    return new Params(usable.reverse());
  }

  /** The raw text of a parameter, or undefined when absent. */
  get(name: string): string | undefined {
    for (const source of this.sources) {
      if (!Object.hasOwn(source, name)) continue;
      const raw = source[name];
      const v = scalar(isRepeated(raw) ? raw[raw.length - 1] : raw);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /**
   * The first of `names` sent more than once in a way that leaves a choice of value: repeated in
   * the query or repeated in the body (an empty value counts: it was sent), or present in both with
   * different values. One value sent in the query and again, the same, in the body counts once:
   * nothing is left to choose (an HTTP library of the hosted service's Ruby sample copies the
   * configured site's query, client_id included, onto the token request). The API at large takes
   * the last value, as the PHP service did; the OAuth endpoints and the pages' forms refuse what
   * this names (RFC 6749 3.1, 3.2).
   */
  repeatedAmong(names: readonly string[]): string | undefined {
    return names.find((name) => {
      const once: Array<string | undefined> = [];
      for (const source of this.sources) {
        if (!Object.hasOwn(source, name)) continue;
        const raw = source[name];
        const sent = (isRepeated(raw) ? raw : [raw]).filter((v) => v !== undefined && v !== null);
        if (sent.length > 1) return true;
        if (sent.length === 1) once.push(scalar(sent[0]));
      }
      // A value that cannot be read as text (undefined) is never the same as another.
      return once.length > 1 && once.some((v) => v === undefined || v !== once[0]);
    });
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** The text of a parameter with surrounding white space removed; empty counts as absent. */
  text(name: string): string | undefined {
    const v = this.get(name)?.trim();
    return v === '' ? undefined : v;
  }
}

/** A form field sent more than once arrives as an array of plain values; a JSON array of objects does not. */
function isRepeated(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x !== 'object' || Buffer.isBuffer(x));
}

function scalar(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  // A JSON body may carry `tasks` as a real array: hand it on as the JSON text the API expects.
  // A value nested too deeply to write back (stack overflow) counts as absent.
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/** The request's parameters, built once per request (after the body is parsed). */
export function paramsOf(request: FastifyRequest): Params {
  return (request.params_ ??= Params.from(request.query, request.body));
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Lenient number reading, as clients send them: 5, "5", 5.5, "1676980800.0", " 7 ", "1e3", true.
 * Returns undefined for anything that is not a finite number. -0 reads as 0.
 */
export function lenientFloat(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (!NUMBER.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n + 0 : undefined;
}

/**
 * Lenient integer reading: lenientFloat with fractions truncated toward zero. Beyond 2^53 integers
 * are no longer exact, and no id or timestamp is that large: undefined.
 */
export function lenientInt(v: unknown): number | undefined {
  const n = lenientFloat(v);
  if (n === undefined) return undefined;
  const i = Math.trunc(n);
  return Number.isSafeInteger(i) ? i + 0 : undefined;
}

/** The largest id: ids are stored as 32-bit integers (PostgreSQL INTEGER). */
export const MAX_ID = 2_147_483_647;

/**
 * An id as clients send it: a whole number (5, "5", 5.0, "5.0") from 1 to MAX_ID. Booleans,
 * fractions and exponents are not ids: reading `true` as 1 or "2.9" as 2 would act on another record.
 */
export function lenientId(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.0*)?\s*$/.test(v) ? Number(v) : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= MAX_ID ? n : undefined;
}


/**
 * What a value sent as an id is, read the same way by every endpoint: 'none' when missing, blank
 * or 0 in any spelling (spec: "empty id"); the id when a whole number from 1 to MAX_ID; otherwise
 * 'invalid' (text, a fraction, a boolean true, a negative or larger number).
 */
export function classifyId(v: unknown): number | 'none' | 'invalid' {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || lenientFloat(v) === 0) return 'none';
  return lenientId(v) ?? 'invalid';
}
