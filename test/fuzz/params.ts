/**
 * Parameters for the fuzzer. Every request may carry any parameter any endpoint reads (the
 * catalogue below) plus names nobody reads; values are drawn per name, plausible or hostile.
 * Credentials are named, not drawn (SecretRef): the engine fills in the real ones of the moment.
 */
import fc from 'fast-check';
import { ALWAYS_FIELDS, OPTIONAL_FIELDS } from '../../src/features/tasks/task-fields.js';
import { anyValue, deepJsonText, hostileNumber, hostileRepeat, hostileText, jsonValue, numberText } from './values.js';

export type Secret =
  | 'token'
  | 'basicToken'
  | 'unknownToken'
  | 'clientId'
  | 'clientSecret'
  | 'code'
  | 'refreshToken'
  | 'redirectUri'
  | 'csrf'
  | 'email'
  | 'password'
  | 'userid'
  /** A collaborator of the account, holding a copy of its task 1 (when its pro allows sharing). */
  | 'partner';

/** A credential of the running fuzz session, filled in when the request is sent. */
export class SecretRef {
  constructor(readonly name: Secret) {}
  [fc.toStringMethod](): string {
    return `<${this.name}>`;
  }
}

/** A JSON value that is not text: kept as is in a JSON body, written as text in forms and URLs. */
export class Typed {
  constructor(readonly value: unknown) {}
  [fc.toStringMethod](): string {
    return `Typed(${fc.stringify(this.value)})`;
  }
}

export type ParamValue = string | SecretRef | Typed;
export type Param = readonly [name: string, value: ParamValue];

const secret = (name: Secret) => fc.constant(new SecretRef(name));
const typed = (a: fc.Arbitrary<unknown>) => a.map((v) => (typeof v === 'string' ? v : new Typed(v)));
const text = (...xs: string[]) => fc.constantFrom(...xs);

/** Small ids hit the records each fuzz account is seeded with. */
const idLike = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 30 }) }, { weight: 2, arbitrary: anyValue });
const dateLike = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 4_102_444_800 }) },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
  { weight: 1, arbitrary: text('2026-02-30', '1969-12-31', '0000-01-01', '9999-12-31', '2026-1-1', '2026-01-01T00:00:00Z') },
  { weight: 2, arbitrary: anyValue },
);
const small = (max: number) => fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -1, max }) }, { weight: 1, arbitrary: anyValue });
const textLike = fc.oneof({ weight: 2, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 3, arbitrary: hostileText }, { weight: 1, arbitrary: anyValue });

/** One item of tasks/add or tasks/edit: known keys with good and bad values, unknown keys, or not an object. */
const taskObject = fc
  .tuple(
    fc.record(
      {
        id: idLike,
        ref: anyValue,
        title: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 2, arbitrary: hostileText }, { weight: 1, arbitrary: anyValue }),
        tag: textLike,
        folder: idLike,
        context: idLike,
        goal: idLike,
        location: idLike,
        parent: idLike,
        duedate: dateLike,
        duedatemod: small(4),
        startdate: dateLike,
        duetime: dateLike,
        starttime: dateLike,
        remind: small(50_000),
        repeat: fc.oneof({ weight: 3, arbitrary: hostileRepeat }, { weight: 1, arbitrary: anyValue }),
        status: small(11),
        length: small(600),
        duration: small(600),
        priority: small(4),
        star: small(2),
        completed: dateLike,
        note: textLike,
        meta: textLike,
        addedby: textLike,
        reschedule: small(2),
        children: anyValue,
        modified: anyValue,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(hostileText, anyValue, { maxKeys: 2 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

const taskItem = fc.oneof({ weight: 9, arbitrary: taskObject as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: anyValue });

/** JSON text cut or spliced: what a client with a broken encoder sends. */
const brokenJson = fc
  .tuple(fc.array(taskItem, { maxLength: 4 }), fc.nat(), fc.constantFrom('', ',', ']', '}', '"', '\\', '\u0000', 'NaN', '\uD800'))
  .map(([items, at, junk]) => {
    const s = JSON.stringify(items);
    const i = at % (s.length + 1);
    return s.slice(0, i) + junk;
  });

const tasksParam: fc.Arbitrary<ParamValue> = fc.oneof(
  { weight: 10, arbitrary: typed(fc.array(taskItem, { maxLength: 6 })) },
  { weight: 1, arbitrary: typed(fc.array(taskObject, { minLength: 48, maxLength: 52 })) },
  { weight: 3, arbitrary: brokenJson },
  { weight: 1, arbitrary: deepJsonText },
  { weight: 2, arbitrary: typed(anyValue) },
);

const FIELD_NAMES = [...OPTIONAL_FIELDS, ...ALWAYS_FIELDS, 'attachments', 'duration', 'constructor', '__proto__', 'Note', ' tag '];
const fieldsParam = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...FIELD_NAMES), { maxLength: 8 }).map((xs) => xs.join(',')) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.constantFrom(...FIELD_NAMES), hostileText), { maxLength: 4 }).map((xs) => xs.join(',')) },
  { weight: 1, arbitrary: text('', ',', ' , ,', OPTIONAL_FIELDS.join(',')) },
);

const scopeText = fc.oneof(
  fc.array(fc.constantFrom('basic', 'tasks', 'notes', 'outlines', 'lists', 'share', 'write', 'folders', 'BASIC', ''), { maxLength: 5 }).map((xs) => xs.join(' ')),
  hostileText,
);

/** share.php's list of user ids: the other account's, its own, unknown ones, not a list. */
const userIds = fc.oneof(secret('partner'), secret('userid'), text('[]', '["nobody"]', '[1,2]', '[{"a":1}]', 'nobody', '[' + '"x",'.repeat(60) + '"x"]'), typed(anyValue), hostileText);

/** Saved searches as search_add and search_edit read them: rules good and bad, ids, anything. */
const searchRule = fc.record({
  field: fc.constantFrom('title', 'tag', 'folder', 'priority', 'duedate', 'checked', 'star', 'colour', ''),
  type: fc.constantFrom('contains', 'is', 'is not', 'before', 'after', 'yes', 'greater than', 'nope'),
  value: fc.oneof(fc.string({ maxLength: 10 }), text('2026-03-10', '12', '-1', 'x'.repeat(300)), anyValue),
});
const searchesParam = fc.oneof(
  fc
    .array(
      fc.oneof(
        fc.record({ id: idLike, name: textLike, bool: fc.constantFrom('All', 'Any', 'any', 'Some'), search: fc.dictionary(fc.constantFrom('root', '1', '2', 'x'), fc.array(searchRule, { maxLength: 3 })) }, { requiredKeys: [] }),
        anyValue,
      ),
      { maxLength: 4 },
    )
    .map((xs) => JSON.stringify(xs)),
  hostileText,
);

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit', '', 'AUTHORIZATION_CODE'];

/** Every parameter an endpoint reads, with values drawn for it. */
const CATALOGUE: Readonly<Record<string, fc.Arbitrary<ParamValue>>> = {
  access_token: fc.oneof(secret('token'), secret('basicToken'), secret('unknownToken'), hostileText),
  f: text('xml', 'json', 'XML', ' xml ', 'x', ''),
  tasks: tasksParam,
  fields: fieldsParam,
  id: fc.oneof(typed(idLike), numberText),
  after: fc.oneof(typed(dateLike), numberText),
  before: fc.oneof(typed(dateLike), numberText),
  modafter: typed(dateLike),
  modbefore: typed(dateLike),
  comp: fc.oneof(typed(small(2)), numberText),
  start: fc.oneof(typed(small(2000)), numberText),
  num: fc.oneof(typed(small(2000)), numberText),
  reschedule: fc.oneof(typed(small(2)), text('true', 'TRUE', 'yes')),
  name: fc.oneof({ weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 2, arbitrary: hostileText }, { weight: 1, arbitrary: typed(anyValue) }),
  private: typed(small(2)),
  archived: typed(small(2)),
  level: typed(small(3)),
  contributes: typed(idLike),
  note: fc.oneof(hostileText, typed(anyValue)),
  description: fc.oneof(hostileText, typed(anyValue)),
  lat: fc.oneof(typed(hostileNumber), numberText, hostileText),
  lon: fc.oneof(typed(hostileNumber), numberText, hostileText),
  grant_type: fc.oneof(text(...GRANT_TYPES), hostileText),
  code: fc.oneof(secret('code'), hostileText),
  refresh_token: fc.oneof(secret('refreshToken'), secret('token'), hostileText),
  redirect_uri: fc.oneof(secret('redirectUri'), text('https://app.example.org/other', 'http://127.0.0.1:8000/cb', 'javascript:alert(1)', '//evil.example'), hostileText),
  scope: scopeText,
  code_verifier: fc.oneof(fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~'), minLength: 0, maxLength: 130 }), hostileText),
  client_id: fc.oneof(secret('clientId'), hostileText),
  client_secret: fc.oneof(secret('clientSecret'), hostileText),
  vers: hostileText,
  os: hostileText,
  device: hostileText,
  udid: hostileText,
  response_type: fc.oneof(text('code', 'token', 'CODE', ''), hostileText),
  state: hostileText,
  code_challenge: fc.oneof(fc.string({ unit: fc.constantFrom(...'abcXYZ019-_'), minLength: 40, maxLength: 50 }), hostileText),
  code_challenge_method: fc.oneof(text('S256', 'plain', 's256', ''), hostileText),
  action: fc.oneof(text('signin', 'allow', 'deny', 'signout', 'ALLOW', ''), hostileText),
  email: fc.oneof(secret('email'), text('nobody@example.org'), hostileText),
  password: fc.oneof(secret('password'), hostileText),
  account: fc.oneof(secret('userid'), hostileText),
  _csrf: fc.oneof(secret('csrf'), hostileText),
  share: userIds,
  assign: fc.oneof(secret('partner'), secret('userid'), text('nobody'), hostileText, typed(anyValue)),
  invite: fc.oneof(secret('partner'), secret('userid'), secret('email'), text('nobody@example.org'), hostileText),
  reassignable: fc.oneof(typed(small(3)), hostileText),
  sharable: fc.oneof(typed(small(3)), hostileText),
  searches: searchesParam,
  search: fc.oneof(typed(idLike), numberText),
  // The change feed's cursor, and its long poll kept to a second: a fuzz request must not wait a minute.
  cursor: fc.oneof(text('0.aaaaaaaaaa', 'zz.0123456789', '1.', ''), hostileText),
  wait: fc.oneof(text('0', '1', '-1', '', '1.5', 'x'), hostileText.filter((t) => !/^\s*[+]?\d*\.?\d/.test(t))),
};

const PARAM_NAMES = Object.keys(CATALOGUE);

/**
 * The parameters each family of endpoints reads, drawn more often for its routes so that requests
 * get past "missing parameter" and reach the rules (a name listed twice comes up twice as often).
 * A route no family matches (a new one) draws from the whole catalogue, which still covers it.
 */
const FAMILIES: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/\/3\/tasks\/(share|reassign)\.php$/, ['id', 'id', 'share', 'share', 'assign', 'assign', 'fields', 'f']],
  [/\/3\/tasks\/search/, ['searches', 'searches', 'searches', 'f']],
  [/\/3\/account\/(collaborators|invitations)/, ['invite', 'invite', 'id', 'id', 'reassignable', 'sharable', 'f']],
  [/\/3\/sync\//, ['cursor', 'cursor', 'num', 'wait', 'f']],
  [/\/3\/tasks\/get\.php$/, ['search', 'fields', 'f', 'id', 'after', 'before', 'comp', 'start', 'num']],
  [/\/3\/tasks\//, ['tasks', 'tasks', 'tasks', 'tasks', 'fields', 'f', 'id', 'after', 'before', 'modafter', 'modbefore', 'comp', 'start', 'num', 'reschedule']],
  [/\/3\/(folders|contexts|goals|locations)\//, ['id', 'id', 'id', 'name', 'name', 'name', 'private', 'archived', 'level', 'contributes', 'note', 'description', 'lat', 'lon', 'f']],
  [/\/token\.php$/, ['grant_type', 'grant_type', 'code', 'code', 'refresh_token', 'refresh_token', 'redirect_uri', 'scope', 'code_verifier', 'client_id', 'client_secret', 'vers', 'os', 'device', 'udid', 'f']],
  [/\/authorize\.php$/, ['response_type', 'response_type', 'client_id', 'client_id', 'client_id', 'state', 'scope', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'action', 'email', 'password', 'account', '_csrf']],
];

const named = (names: readonly string[]): fc.Arbitrary<Param> =>
  fc.constantFrom(...names).chain((name) => (CATALOGUE[name] as fc.Arbitrary<ParamValue>).map((v): Param => [name, v]));

/** One parameter: a known name with a value for it, or any name with any value. */
function paramFor(route: string): fc.Arbitrary<Param> {
  const family = FAMILIES.find(([pattern]) => pattern.test(route))?.[1];
  return fc.oneof(
    { weight: family ? 8 : 0, arbitrary: named(family ?? PARAM_NAMES) },
    { weight: 3, arbitrary: named(PARAM_NAMES) },
    { weight: 1, arbitrary: fc.tuple(hostileText, fc.oneof(hostileText, typed(jsonValue))) },
  );
}

/** A parameter list, some names sent twice with another value (a repeated form field arrives as an array). */
export function paramsFor(route: string): fc.Arbitrary<Param[]> {
  return fc
    .tuple(fc.array(paramFor(route), { maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.oneof(hostileText, numberText)), { maxLength: 2 }))
    .map(([ps, repeats]) => {
      const out = [...ps];
      for (const [i, value] of repeats) {
        const repeated = ps[i % Math.max(1, ps.length)];
        if (repeated) out.push([repeated[0], value]);
      }
      return out;
    });
}
