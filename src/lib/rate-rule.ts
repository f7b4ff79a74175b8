/** A fixed-window rate: at most `limit` events per `windowSeconds`; limit 0 means unlimited. */
export interface RateRule {
  readonly limit: number;
  readonly windowSeconds: number;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `100/1h`, `10/15m`, `5/30s`, `1000/h`, or `0`/`off` (unlimited). Returns undefined if malformed. */
export function parseRateRule(text: string): RateRule | undefined {
  const t = text.trim().toLowerCase();
  if (t === '0' || t === 'off') return { limit: 0, windowSeconds: 1 };
  const m = /^(\d{1,9})\s*\/\s*(\d{0,9})\s*([smhd])$/.exec(t);
  if (!m) return undefined;
  const limit = Number(m[1]);
  const count = m[2] === '' ? 1 : Number(m[2]);
  const windowSeconds = count * (UNITS[m[3] as string] as number);
  if (limit < 1 || windowSeconds < 1 || windowSeconds > 7 * 86400) return undefined;
  return { limit, windowSeconds };
}

export function formatRateRule(rule: RateRule): string {
  return rule.limit === 0 ? 'off' : `${rule.limit}/${rule.windowSeconds}s`;
}
