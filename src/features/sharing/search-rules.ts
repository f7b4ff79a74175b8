import type { FilterColumn, Task, TaskFilter, TextColumn } from '../../storage/store.js';
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

/** What the rules read of a task: its stored columns (FilterColumn names Task fields). */
export type SearchedTask = Pick<Task, FilterColumn>;

interface Field {
  readonly kind: Kind;
  /** The stored column the rule reads. */
  readonly column: FilterColumn;
  readonly read: (t: SearchedTask) => string | number;
}

/** A field that reads its column as it is stored (all but `checked`). */
const stored = (kind: Kind, column: FilterColumn): Field => ({ kind, column, read: (t) => t[column] });

/** The fields a rule may name, with the column each reads and how it reads it. */
const FIELDS: Readonly<Record<string, Field>> = {
  title: stored('text', 'title'),
  note: stored('text', 'note'),
  tag: stored('tag', 'tag'),
  folder: stored('ref', 'folder'),
  context: stored('ref', 'context'),
  goal: stored('ref', 'goal'),
  location: stored('ref', 'location'),
  parent: stored('ref', 'parent'),
  priority: stored('number', 'priority'),
  status: stored('number', 'status'),
  length: stored('number', 'length'),
  star: stored('flag', 'star'),
  checked: { kind: 'flag', column: 'completed', read: (t) => (t.completed > 0 ? 1 : 0) },
  repeat: stored('text', 'repeat'),
  duedate: stored('date', 'duedate'),
  startdate: stored('date', 'startdate'),
  completed: stored('date', 'completed'),
  added: stored('date', 'added'),
  modified: stored('date', 'modified'),
};

/** The field a rule names, if it is one (never a name the object inherits, such as constructor). */
function fieldOf(name: string): Field | undefined {
  return Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined;
}

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
  const f = fieldOf(r.field);
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

type Test = (t: SearchedTask) => boolean;
const never: Test = () => false;

/**
 * One (checked) rule as a test of a task, its value read once: a search runs its tests over up to
 * an account's every task, and reading the value for each task (a date's pattern, say) cost more
 * than the test.
 */
function ruleTest(r: Rule): Test {
  const f = fieldOf(r.field);
  if (!f) return never;
  const read = f.read;
  const want = r.value.trim();
  switch (f.kind) {
    case 'text': {
      const v = want.toLowerCase();
      const text = (t: SearchedTask): string => String(read(t)).toLowerCase();
      if (r.type === 'contains') return (t) => text(t).includes(v);
      if (r.type === 'does not contain') return (t) => !text(t).includes(v);
      if (r.type === 'is') return (t) => text(t) === v;
      if (r.type === 'is not') return (t) => text(t) !== v;
      if (r.type === 'begins with') return (t) => text(t).startsWith(v);
      if (r.type === 'ends with') return (t) => text(t).endsWith(v);
      return r.type === 'is empty' ? (t) => read(t) === '' : (t) => read(t) !== '';
    }
    case 'tag': {
      const v = want.toLowerCase();
      const tags = (t: SearchedTask): string[] => tagsOf(String(read(t)));
      if (r.type === 'is') return (t) => tags(t).includes(v);
      if (r.type === 'is not') return (t) => !tags(t).includes(v);
      if (r.type === 'contains') return (t) => tags(t).some((x) => x.includes(v));
      if (r.type === 'does not contain') return (t) => !tags(t).some((x) => x.includes(v));
      return r.type === 'is empty' ? (t) => tags(t).length === 0 : (t) => tags(t).length > 0;
    }
    case 'ref': {
      const n = Number(want);
      return r.type === 'is' ? (t) => read(t) === n : (t) => read(t) !== n;
    }
    case 'number': {
      const n = Number(want);
      if (r.type === 'is') return (t) => read(t) === n;
      if (r.type === 'is not') return (t) => read(t) !== n;
      return r.type === 'greater than' ? (t) => (read(t) as number) > n : (t) => (read(t) as number) < n;
    }
    case 'flag':
      return r.type === 'yes' ? (t) => read(t) !== 0 : (t) => read(t) === 0;
    case 'date': {
      if (r.type === 'is empty') return (t) => read(t) === 0;
      if (r.type === 'is not empty') return (t) => read(t) !== 0;
      const day = dayOf(want) as number;
      const mine = (t: SearchedTask): number => noonOf(read(t) as number);
      if (r.type === 'is') return (t) => mine(t) === day;
      if (r.type === 'is not') return (t) => mine(t) !== day;
      // An empty date is neither before nor after any day.
      if (r.type === 'before') return (t) => read(t) !== 0 && mine(t) < day;
      return (t) => read(t) !== 0 && mine(t) >= day + DAY;
    }
  }
}

/** Whether one (checked) rule holds for a task. */
export function ruleMatches(r: Rule, t: SearchedTask): boolean {
  return ruleTest(r)(t);
}

/**
 * The search as one test of a task, each rule's value read once (run it over many tasks). A
 * search without rules matches every task.
 */
export function searchTest(bool: 'All' | 'Any', rules: SearchRules): Test {
  const all = bool === 'All';
  const outcomes: Test[] = rules.root.map(ruleTest);
  for (const [, group] of rules.groups) {
    if (group.length === 0) continue;
    // The group's rules joined by the opposite operator.
    const tests = group.map(ruleTest);
    outcomes.push(all ? (t) => tests.some((x) => x(t)) : (t) => tests.every((x) => x(t)));
  }
  if (outcomes.length === 0) return () => true;
  return all ? (t) => outcomes.every((x) => x(t)) : (t) => outcomes.some((x) => x(t));
}

/** Whether a task matches the search. */
export function matches(bool: 'All' | 'Any', rules: SearchRules, t: SearchedTask): boolean {
  return searchTest(bool, rules)(t);
}

type Comparison = '=' | '<>' | '<' | '<=' | '>' | '>=';

/**
 * Text JavaScript's lower case shares with Dialect.foldedHolds: ASCII. Of all the characters
 * outside it, only U+0130 (İ: i and a combining dot) and U+212A (the Kelvin sign: k) lower into
 * text holding ASCII, and foldedHolds reads them as i and k (a test walks every code point).
 */
const ASCII = /^[\x00-\x7f]*$/;

/**
 * One rule as a condition the database applies: `exact` when it is the rule (ruleMatches), or else
 * one that holds for every task the rule matches, which the code then decides among. Text and tags
 * compare without case the way JavaScript folds it, which SQL's lower() and LIKE do not share: the
 * database decides only a text's being empty, and for a rule that needs a text holding an ASCII
 * value (contains, is, begins with, ends with; a tag that is or contains it) narrows the tasks to
 * those whose ASCII-folded text holds it. A property test holds each condition to ruleMatches
 * (search-rules.test.ts), another whole searches to matches() on both databases (searches.test.ts).
 */
function ruleFilter(r: Rule): { readonly where: TaskFilter; readonly exact: boolean } {
  const f = fieldOf(r.field);
  if (!f) return { where: { any: [] }, exact: true };
  const exact = (where: TaskFilter) => ({ where, exact: true });
  const number = (op: Comparison, value: number): TaskFilter => ({ column: f.column as Exclude<FilterColumn, TextColumn>, op, value });
  const want = r.value.trim();
  switch (f.kind) {
    case 'text':
    case 'tag': {
      const column = f.column as TextColumn;
      if (f.kind === 'text' && (r.type === 'is empty' || r.type === 'is not empty')) return exact({ column, empty: r.type === 'is empty' });
      const v = want.toLowerCase();
      const holds = f.kind === 'text' ? ['contains', 'is', 'begins with', 'ends with'] : ['is', 'contains'];
      return { where: holds.includes(r.type) && ASCII.test(v) ? { column, folded: v } : { all: [] }, exact: false };
    }
    case 'ref':
      return exact(number(r.type === 'is' ? '=' : '<>', Number(want)));
    case 'number':
      return exact(number(r.type === 'is' ? '=' : r.type === 'is not' ? '<>' : r.type === 'greater than' ? '>' : '<', Number(want)));
    case 'flag':
      // star: not 0; checked: completed after 0 (its read is completed > 0).
      if (r.field === 'checked') return exact(number(r.type === 'yes' ? '>' : '<=', 0));
      return exact(number(r.type === 'yes' ? '<>' : '=', 0));
    case 'date': {
      if (r.type === 'is empty') return exact(number('=', 0));
      if (r.type === 'is not empty') return exact(number('<>', 0));
      // A stored date is on the day `day` when it is not 0 and lies in [from, from + DAY); the
      // day of Unix time 0 is 0 itself, which only an empty date equals.
      const day = dayOf(want) as number;
      const from = Math.floor(day / DAY) * DAY;
      const set = number('<>', 0);
      if (r.type === 'is') return exact(day === 0 ? number('=', 0) : { all: [set, number('>=', from), number('<', from + DAY)] });
      if (r.type === 'is not') return exact(day === 0 ? set : { any: [number('=', 0), number('<', from), number('>=', from + DAY)] });
      return exact(r.type === 'before' ? { all: [set, number('<', from)] } : { all: [set, number('>=', from + DAY)] });
    }
  }
}

/** How the database and the code share a search's work (searchPlan). */
export interface SearchPlan {
  /** What the database applies: the whole search when `exact`, else a condition every match meets. */
  readonly where: TaskFilter;
  /** Whether `where` decides the search alone; if not, matches() decides among the tasks it lets through. */
  readonly exact: boolean;
  /** The columns matches() reads for this search. */
  readonly reads: readonly FilterColumn[];
}

/**
 * The search as matches() joins it, each rule as its condition (ruleFilter): the rules are only
 * joined with AND and OR, so where a rule's condition holds for every task the rule matches, the
 * whole condition holds for every task the search matches.
 */
export function searchPlan(bool: 'All' | 'Any', rules: SearchRules): SearchPlan {
  let exact = true;
  const reads = new Set<FilterColumn>();
  const one = (r: Rule): TaskFilter => {
    const f = fieldOf(r.field);
    if (f) reads.add(f.column);
    const c = ruleFilter(r);
    if (!c.exact) exact = false;
    return c.where;
  };
  const all = bool === 'All';
  const outcomes: TaskFilter[] = rules.root.map(one);
  for (const [, group] of rules.groups) {
    if (group.length === 0) continue;
    const parts = group.map(one);
    outcomes.push(all ? { any: parts } : { all: parts });
  }
  const where: TaskFilter = outcomes.length === 0 ? { all: [] } : all ? { all: outcomes } : { any: outcomes };
  return { where, exact, reads: [...reads] };
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
