import type { Task } from '../../storage/store.js';
import { DAY, noonOf } from '../tasks/task-rules.js';

/**
 * Saved searches' rule language (hosted-resources.md; docs/sharing.md lists every field and type).
 * A search is `bool` (All or Any) over `root` rules; each numbered group joins its rules with the
 * opposite operator and counts as one more rule of the root:
 * All: r1 AND r2 AND (g1a OR g1b); Any: r1 OR r2 OR (g1a AND g1b).
 * Pure: no clock, no database; every loop is bounded by the caps below.
 */
export interface Rule {
  readonly field: string;
  readonly type: string;
  readonly value: string;
}

export interface SearchRules {
  readonly root: readonly Rule[];
  /** Numbered groups ("1", "2", …) in number order. */
  readonly groups: ReadonlyArray<readonly [string, readonly Rule[]]>;
}

export const SEARCH_CAPS = { rules: 100, groups: 20, value: 255, name: 64, searches: 200 } as const;

type Kind = 'text' | 'tag' | 'ref' | 'number' | 'date' | 'flag';

/** The fields a rule may name, with how each is read from a task. */
const FIELDS: Readonly<Record<string, { readonly kind: Kind; readonly read: (t: Task) => string | number }>> = {
  title: { kind: 'text', read: (t) => t.title },
  note: { kind: 'text', read: (t) => t.note },
  tag: { kind: 'tag', read: (t) => t.tag },
  folder: { kind: 'ref', read: (t) => t.folder },
  context: { kind: 'ref', read: (t) => t.context },
  goal: { kind: 'ref', read: (t) => t.goal },
  location: { kind: 'ref', read: (t) => t.location },
  parent: { kind: 'ref', read: (t) => t.parent },
  priority: { kind: 'number', read: (t) => t.priority },
  status: { kind: 'number', read: (t) => t.status },
  length: { kind: 'number', read: (t) => t.length },
  star: { kind: 'flag', read: (t) => t.star },
  checked: { kind: 'flag', read: (t) => (t.completed > 0 ? 1 : 0) },
  repeat: { kind: 'text', read: (t) => t.repeat },
  duedate: { kind: 'date', read: (t) => t.duedate },
  startdate: { kind: 'date', read: (t) => t.startdate },
  completed: { kind: 'date', read: (t) => t.completed },
  added: { kind: 'date', read: (t) => t.added },
  modified: { kind: 'date', read: (t) => t.modified },
};

/** The types each kind of field takes. */
export const TYPES: Readonly<Record<Kind, readonly string[]>> = {
  text: ['contains', 'does not contain', 'is', 'is not', 'begins with', 'ends with', 'is empty', 'is not empty'],
  tag: ['is', 'is not', 'contains', 'does not contain', 'is empty', 'is not empty'],
  ref: ['is', 'is not'],
  number: ['is', 'is not', 'greater than', 'less than'],
  date: ['is', 'is not', 'before', 'after', 'is empty', 'is not empty'],
  flag: ['yes', 'no'],
};

export function fieldNames(): string[] {
  return Object.keys(FIELDS);
}

/** Checks one rule's field, type and value; returns what is wrong, or undefined. */
export function ruleProblem(r: Rule): string | undefined {
  const f = Object.hasOwn(FIELDS, r.field) ? FIELDS[r.field] : undefined;
  if (!f) return `unknown field "${r.field}"`;
  if (!TYPES[f.kind].includes(r.type)) return `"${r.type}" does not apply to ${r.field} (${TYPES[f.kind].join(', ')})`;
  if (r.value.length > SEARCH_CAPS.value) return `a value is longer than ${SEARCH_CAPS.value} characters`;
  if ((f.kind === 'ref' || f.kind === 'number') && !/^-?\d{1,15}$/.test(r.value.trim())) return `${r.field} takes a whole number`;
  if (f.kind === 'date' && !r.type.includes('empty') && dayOf(r.value) === undefined) return `${r.field} takes a date: YYYY-MM-DD or a Unix time`;
  return undefined;
}

/** A date value as the noon of its day (how task dates are kept), from YYYY-MM-DD or Unix seconds. */
function dayOf(value: string): number | undefined {
  const v = value.trim();
  if (/^\d{1,12}$/.test(v)) return noonOf(Number(v));
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(ms) ? undefined : noonOf(ms / 1000);
}

function tagsOf(tag: string): string[] {
  return tag.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** Whether one (checked) rule holds for a task. */
export function ruleMatches(r: Rule, t: Task): boolean {
  const f = FIELDS[r.field];
  if (!f) return false;
  const raw = f.read(t);
  const want = r.value.trim();
  switch (f.kind) {
    case 'text': {
      const text = String(raw).toLowerCase();
      const v = want.toLowerCase();
      if (r.type === 'contains') return text.includes(v);
      if (r.type === 'does not contain') return !text.includes(v);
      if (r.type === 'is') return text === v;
      if (r.type === 'is not') return text !== v;
      if (r.type === 'begins with') return text.startsWith(v);
      if (r.type === 'ends with') return text.endsWith(v);
      return r.type === 'is empty' ? text === '' : text !== '';
    }
    case 'tag': {
      const tags = tagsOf(String(raw));
      const v = want.toLowerCase();
      if (r.type === 'is') return tags.includes(v);
      if (r.type === 'is not') return !tags.includes(v);
      if (r.type === 'contains') return tags.some((x) => x.includes(v));
      if (r.type === 'does not contain') return !tags.some((x) => x.includes(v));
      return r.type === 'is empty' ? tags.length === 0 : tags.length > 0;
    }
    case 'ref':
      return r.type === 'is' ? raw === Number(want) : raw !== Number(want);
    case 'number': {
      const n = Number(want);
      if (r.type === 'is') return raw === n;
      if (r.type === 'is not') return raw !== n;
      return r.type === 'greater than' ? (raw as number) > n : (raw as number) < n;
    }
    case 'flag':
      return r.type === 'yes' ? raw !== 0 : raw === 0;
    case 'date': {
      const value = raw as number;
      if (r.type === 'is empty') return value === 0;
      if (r.type === 'is not empty') return value !== 0;
      const day = dayOf(want) as number;
      const mine = value === 0 ? 0 : noonOf(value);
      if (r.type === 'is') return mine === day;
      if (r.type === 'is not') return mine !== day;
      // An empty date is neither before nor after any day.
      if (value === 0) return false;
      return r.type === 'before' ? mine < day : mine >= day + DAY;
    }
  }
}

/** Whether a task matches the search. A search without rules matches every task. */
export function matches(bool: 'All' | 'Any', rules: SearchRules, t: Task): boolean {
  const all = bool === 'All';
  const outcomes: boolean[] = rules.root.map((r) => ruleMatches(r, t));
  for (const [, group] of rules.groups) {
    if (group.length === 0) continue;
    // The group's rules joined by the opposite operator.
    outcomes.push(all ? group.some((r) => ruleMatches(r, t)) : group.every((r) => ruleMatches(r, t)));
  }
  if (outcomes.length === 0) return true;
  return all ? outcomes.every(Boolean) : outcomes.some(Boolean);
}

/**
 * Reads a search's `search` object ({"root":[…],"1":[…]}) as sent by a client or stored: each rule
 * {field, type, value}; returns the rules or what is wrong with them (capped).
 */
export function parseRules(raw: unknown): SearchRules | { problem: string } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { problem: 'search must be an object of rule lists: {"root":[…],"1":[…]}' };
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > SEARCH_CAPS.groups + 1) return { problem: `at most ${SEARCH_CAPS.groups} numbered groups` };
  let count = 0;
  let root: Rule[] = [];
  const groups: Array<[string, Rule[]]> = [];
  for (const [key, list] of entries) {
    if (key !== 'root' && !/^[1-9]\d{0,2}$/.test(key)) return { problem: `"${key}" is neither root nor a group number` };
    if (!Array.isArray(list)) return { problem: `${key} must be a list of rules` };
    const rules: Rule[] = [];
    for (const item of list as unknown[]) {
      if (++count > SEARCH_CAPS.rules) return { problem: `at most ${SEARCH_CAPS.rules} rules` };
      if (item === null || typeof item !== 'object') return { problem: 'each rule must be {"field","type","value"}' };
      const { field, type, value } = item as Record<string, unknown>;
      const v = typeof value === 'number' ? String(value) : value === undefined || value === null ? '' : value;
      if (typeof field !== 'string' || typeof type !== 'string' || typeof v !== 'string') return { problem: 'each rule must be {"field","type","value"} of text' };
      const rule = { field: field.trim().toLowerCase(), type: type.trim().toLowerCase(), value: v };
      const problem = ruleProblem(rule);
      if (problem) return { problem };
      rules.push(rule);
    }
    if (key === 'root') root = rules;
    else groups.push([key, rules]);
  }
  groups.sort((x, y) => Number(x[0]) - Number(y[0]));
  return { root, groups };
}

/** The stored and shown form: root first, then the groups in number order. */
export function rulesObject(rules: SearchRules): Record<string, Rule[]> {
  const out: Record<string, Rule[]> = { root: [...rules.root] };
  for (const [k, list] of rules.groups) out[k] = [...list];
  return out;
}
