/**
 * OAuth scopes (spec part 5; enforcement documented in docs/scopes.md).
 * Clients request words the hosted service never documented (`folders`), and a popular OAuth
 * library fails when the returned scope differs from the requested one, so unknown words are
 * accepted, echoed back, and grant nothing.
 */
export const KNOWN_SCOPES = ['basic', 'tasks', 'notes', 'outlines', 'lists', 'share', 'write'] as const;
export type KnownScope = (typeof KNOWN_SCOPES)[number];

/** The scopes that each let a token read one part of the account's data. */
export type ResourceScope = 'tasks' | 'notes' | 'outlines' | 'lists';

/**
 * What an endpoint needs: a resource's scope to read it, the same with ` write` to change it.
 * `write` alone means `tasks write` (tasks, folders, contexts, goals, locations).
 */
export type RequiredScope = 'basic' | ResourceScope | 'write' | `${Exclude<ResourceScope, 'tasks'>} write` | 'share' | 'share write' | 'any resource';

/** Every resource scope: a call that reads what any of them lets it (the change feed) needs one. */
export const RESOURCE_SCOPES: readonly ResourceScope[] = ['tasks', 'notes', 'outlines', 'lists'];

/** RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by spaces. */
const TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
export const MAX_SCOPE_LENGTH = 1000;

/** Splits a scope string into its words; undefined when empty or malformed. */
export function parseScope(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.length > MAX_SCOPE_LENGTH) return undefined;
  const words = raw.split(/[ \t]+/).filter(Boolean);
  if (words.length === 0 || !words.every((w) => TOKEN.test(w))) return undefined;
  return words;
}

/** The scope words that carry meaning on this server. */
export function grantedScopes(words: readonly string[]): ReadonlySet<KnownScope> {
  return new Set(words.filter((w): w is KnownScope => (KNOWN_SCOPES as readonly string[]).includes(w)));
}

/** The first scope word missing for `need`, or undefined when the grant covers it. */
export function missingScope(granted: ReadonlySet<string>, need: RequiredScope): KnownScope | undefined {
  if (need === 'basic') return granted.has('basic') ? undefined : 'basic';
  // Collaborators are read with `share`; sharing and reassigning tasks change tasks, so they need
  // what changing a task needs as well (docs/sharing.md).
  if (need === 'share') return granted.has('share') ? undefined : 'share';
  if (need === 'share write') return granted.has('share') ? missingScope(granted, 'write') : 'share';
  // The change feed serves the kinds each scope lets a token read: any one of them will do.
  if (need === 'any resource') return RESOURCE_SCOPES.some((s) => granted.has(s)) ? undefined : 'tasks';
  const [first, second] = need.split(' ') as [string, string | undefined];
  // `write` changes what the resource's own scope lets a token read, never anything more.
  const resource = (first === 'write' ? 'tasks' : first) as ResourceScope;
  if (!granted.has(resource)) return resource;
  if ((first === 'write' || second === 'write') && !granted.has('write')) return 'write';
  return undefined;
}

/** Plain-words description of each scope for the consent page. */
export function describeScope(word: string): { text: string; known: boolean } {
  switch (word) {
    case 'basic':
      return { text: 'See your account details: name, e-mail address and settings', known: true };
    case 'tasks':
      return { text: 'See your tasks, goals, contexts, folders and locations', known: true };
    case 'write':
      return { text: 'Add, change and delete what the other permissions let it see', known: true };
    case 'notes':
      return { text: 'See your notes', known: true };
    case 'outlines':
      return { text: 'See your outlines', known: true };
    case 'lists':
      return { text: 'See your lists and their rows', known: true };
    case 'share':
      return { text: 'See who you share with; with the permission to change tasks, share and hand over tasks', known: true };
    default:
      return { text: `“${word}”: not a permission this server knows; it grants nothing`, known: false };
  }
}
