/**
 * The one table of API error codes (spec part 7, plus the hosted service's 0 and 617, plus the
 * folder and location codes of the compat notes, plus 211/311/411/511: "malformed request" for a
 * folder, context, goal or location value out of range, on the pattern of the hosted service's
 * 611, 711, 811, 911 and 1011, plus the notes, outlines, lists and rows codes 7xx–10xx of the
 * hosted service's other resources, docs/notes-and-lists.md). docs/errors.md mirrors it; a test keeps the two
 * in step. The code is the stable identifier; descriptions may be made more specific per call.
 *
 * HTTP status: 1 and 2 → 401, 3 and 103 → 429, 4 → 503, 104 → 400 (401 for bad client
 * credentials), the change feed's 1100 and 1101 → 400 and 1102 → 410, 1103 → 422, 1104 → 409,
 * 1105 → 400, 1107 → 429, every other code → 200 (what clients of
 * the hosted service expect). Transport-level failures (unknown path, oversize body) use code 0
 * with a fitting 4xx status; an unexpected internal failure uses code 0 with 500.
 */
export const ERRORS = {
  0: 'Unknown error',
  1: 'No access token was given',
  2: 'Unauthorized',
  3: 'Too many API requests',
  4: 'The API is offline for maintenance',
  101: 'SSL connection is required',
  102: 'There was an error requesting a token',
  103: 'Too many token requests',
  104: 'There was an error revoking a token',
  201: 'Your folder must have a name',
  202: 'A folder with that name already exists',
  203: 'Max folders reached',
  204: 'Empty id',
  205: 'Invalid folder',
  206: 'Nothing was edited',
  211: 'Malformed request',
  301: 'Your context must have a name',
  302: 'A context with that name already exists',
  303: 'Max contexts reached (1000)',
  304: 'Empty id',
  305: 'Invalid context',
  306: 'Nothing was edited',
  311: 'Malformed request',
  401: 'Your goal must have a name',
  402: 'A goal with that name already exists',
  403: 'Max goals reached (500)',
  404: 'Empty id',
  405: 'Invalid goal',
  406: 'Nothing was edited',
  411: 'Malformed request',
  501: 'Your location must have a name',
  502: 'A location with that name already exists',
  503: 'Max locations reached (500)',
  504: 'Empty id',
  505: 'Invalid location',
  506: 'Nothing was edited',
  511: 'Malformed request',
  601: 'Your task must have a title',
  602: 'Only 50 tasks can be added/edited/deleted at a time',
  603: 'The maximum number of tasks allowed per account (80000) has been reached',
  604: 'Empty id',
  605: 'Invalid task',
  606: 'Nothing was added/edited',
  607: 'Invalid folder id',
  608: 'Invalid context id',
  609: 'Invalid goal id',
  610: 'Invalid location id',
  611: 'Malformed request',
  612: 'Invalid parent id',
  613: 'Incorrect field parameters',
  614: 'Parent was deleted',
  615: 'Invalid collaborator',
  616: 'Unable to reassign or share task',
  617: 'This feature requires a subscription',
  // Tickler's own, for saved searches (an addition: docs/sharing.md).
  618: 'Invalid saved search',
  701: 'Your note must have a title',
  702: 'Only 50 notes can be added/edited/deleted at a time',
  703: 'Max notes reached',
  704: 'Empty id',
  705: 'Invalid note',
  706: 'Nothing was added/edited',
  707: 'Invalid folder id',
  711: 'Malformed request',
  801: 'Your outline must have a title',
  802: 'Only 50 outlines can be added/edited/deleted at a time',
  803: 'Max outlines reached',
  804: 'Empty id',
  805: 'Invalid outline',
  806: 'Nothing was added/edited',
  807: 'Invalid node id',
  808: 'Max nodes reached',
  809: 'This outline was already added',
  811: 'Malformed request',
  812: 'Missing ref',
  813: 'Invalid outline format',
  814: 'The outline was changed since this version',
  901: 'Your list must have a title',
  902: 'Only 50 lists can be added/edited/deleted at a time',
  903: 'Max lists reached',
  904: 'Empty id',
  905: 'Invalid list',
  906: 'Nothing was added/edited',
  907: 'Invalid column id',
  908: 'Max columns reached',
  909: 'This list was already added',
  911: 'Malformed request',
  912: 'Missing ref',
  913: 'Invalid columns',
  914: 'The list was changed since this version',
  1001: 'Your row must name its list',
  1002: 'Only 50 rows can be added/edited/deleted at a time',
  1003: 'Max rows reached',
  1004: 'Empty id',
  1005: 'Invalid row',
  1006: 'Nothing was added/edited',
  1007: 'Invalid list',
  1009: 'This row was already added',
  1011: 'Malformed request',
  1012: 'Missing ref',
  1013: 'Invalid cell',
  1014: 'The row was changed since this version',
  1100: 'Malformed request',
  1101: 'Invalid cursor',
  1102: 'The cursor is older than the history kept: start again without a cursor',
  // Tickler's own, for apps (issue 41): safe retries (docs/decisions/0022) and conditional edits.
  1103: 'This Idempotency-Key was used with other parameters',
  1104: 'A request with this Idempotency-Key is still being processed',
  1105: 'Invalid Idempotency-Key',
  1106: 'The task was changed since if_modified',
  // Push (docs/decisions/0026): SSE_MAX_PER_ACCOUNT event streams are open for the account already.
  1107: 'Too many event streams are open for this account',
} as const satisfies Record<number, string>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * A number checked against the table, for code computed from a base (a kind's x01…x14): fails
 * at start-up, not on the first error answer, when it points outside the table.
 */
export function tableCode(code: number): ErrorCode {
  if (!Object.hasOwn(ERRORS, code)) throw new Error(`error ${code} is not in the error table`);
  return code as ErrorCode;
}

export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 1:
    case 2:
      return 401;
    case 3:
    case 103:
      return 429;
    case 4:
      return 503;
    // Tickler's revocation endpoint (RFC 7009): its clients read the HTTP status, as RFC 6749 5.2 has it.
    case 104:
      return 400;
    // The change feed's own codes (docs/sync.md): an app that asks for it reads the HTTP status.
    case 1100:
    case 1101:
      return 400;
    case 1102:
      return 410;
    // Idempotency-Key (docs/decisions/0022): a new header only apps that know it send, answered
    // with the statuses of the IETF draft for it, which such apps read.
    case 1103:
      return 422;
    case 1104:
      return 409;
    case 1105:
      return 400;
    // Too many event streams: the status a client of server-sent events reads and backs off on.
    case 1107:
      return 429;
    default:
      return 200;
  }
}

export interface ApiErrorOptions {
  /** Overrides the table's description with a more specific one (the code stays the identifier). */
  desc?: string | undefined;
  /** The client's pass-through ref (add) or the attempted id (edit/delete). */
  ref?: string | number | undefined;
  /** HTTP status for transport-level failures; API codes take theirs from httpStatusOf. */
  status?: number | undefined;
  /** Seconds for a Retry-After header (rate limits, maintenance). */
  retryAfter?: number | undefined;
  /** Extra response headers (WWW-Authenticate). */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** An error the client is meant to see: rendered as the error record in the negotiated format. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly desc: string;
  readonly ref: string | number | undefined;
  readonly status: number;
  readonly retryAfter: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const desc = options.desc ?? ERRORS[code];
    super(`API error ${code}: ${desc}`);
    this.name = 'ApiError';
    this.code = code;
    this.desc = desc;
    this.ref = options.ref;
    this.status = options.status ?? httpStatusOf(code);
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }
}

/** An inline, per-item error of a batch call (never thrown: returned among the results). */
export interface ItemError {
  readonly errorCode: ErrorCode;
  readonly errorDesc: string;
  readonly ref: string | number;
}

export function itemError(code: ErrorCode, ref: string | number, desc?: string): ItemError {
  return { errorCode: code, errorDesc: desc ?? ERRORS[code], ref };
}
