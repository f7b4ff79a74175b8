/**
 * The crash loop's HTTP client. A write whose answer arrives whole is acknowledged; one whose
 * connection dies first (the server was killed) is in flight, its fate for the next
 * verification to find out. A whole answer that is not the success it should be is a fault.
 */
import { editFields, ORGANIZER_KINDS, type Ledger, type OrganizerKind, type ServerState, type ServerTask } from './ledger.js';

/** The server answered, wrongly: the crash loop stops and reports it. */
export class WrongAnswer extends Error {
  override name = 'WrongAnswer';
}

/** A POST; undefined when the connection died before the whole answer arrived. */
async function post(url: string, token: string, path: string, form: Record<string, string>): Promise<unknown> {
  let text: string;
  let status: number;
  try {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams(form) });
    status = res.status;
    text = await res.text();
  } catch {
    return undefined;
  }
  if (status !== 200) throw new WrongAnswer(`${path} answered HTTP ${status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WrongAnswer(`${path} answered something that is not JSON: ${text.slice(0, 300)}`);
  }
}

export interface AccountClient {
  readonly name: string;
  readonly token: string;
  readonly ledger: Ledger;
}

/** tasks/add of `titles` (one batch, one transaction); records the outcome in the ledger. */
export async function addTasks(url: string, a: AccountClient, titles: readonly string[]): Promise<boolean> {
  const items = titles.map((title, i) => ({ title, ref: String(i), ...editFields(0), duedate: 1_767_268_800 + i * 3_600, repeat: i % 7 === 0 ? 'FREQ=WEEKLY' : '' }));
  const body = await post(url, a.token, '/3/tasks/add.php', { tasks: JSON.stringify(items) });
  if (body === undefined) {
    a.ledger.unacknowledged({ kind: 'add', titles });
    return false;
  }
  const results = body as Array<{ id?: number; title?: string; errorCode?: number }>;
  if (!Array.isArray(results) || results.length !== titles.length || results.some((r, i) => typeof r.id !== 'number' || r.title !== titles[i])) {
    throw new WrongAnswer(`tasks/add of ${titles.length} answered ${JSON.stringify(body).slice(0, 300)}`);
  }
  a.ledger.addAcknowledged(titles, results.map((r) => r.id as number));
  return true;
}

/** tasks/edit of each task to its next version. */
export async function editTasks(url: string, a: AccountClient, versions: ReadonlyMap<number, number>): Promise<boolean> {
  const items = [...versions].map(([id, v]) => ({ id, ...editFields(v) }));
  const body = await post(url, a.token, '/3/tasks/edit.php', { tasks: JSON.stringify(items), fields: 'note,star' });
  if (body === undefined) {
    a.ledger.unacknowledged({ kind: 'edit', versions });
    return false;
  }
  const results = body as Array<{ id?: number; note?: string }>;
  if (!Array.isArray(results) || results.length !== items.length || results.some((r, i) => r.id !== items[i]?.id || r.note !== items[i]?.note)) {
    a.ledger.release(versions);
    throw new WrongAnswer(`tasks/edit of ${items.length} answered ${JSON.stringify(body).slice(0, 300)}`);
  }
  a.ledger.editAcknowledged(versions);
  return true;
}

export async function addOrganizer(url: string, a: AccountClient, kind: OrganizerKind, name: string): Promise<boolean> {
  const body = await post(url, a.token, `/3/${kind}/add.php`, { name });
  if (body === undefined) {
    a.ledger.unacknowledged({ kind: 'organizer', organizer: kind, name });
    return false;
  }
  const record = (body as Array<{ id?: number; name?: string }>)[0];
  if (!Array.isArray(body) || typeof record?.id !== 'number' || record.name !== name) throw new WrongAnswer(`${kind}/add answered ${JSON.stringify(body).slice(0, 300)}`);
  a.ledger.organizerAcknowledged(kind, name, record.id);
  return true;
}

/** Everything the account holds, as the verification reads it. */
export async function serverState(url: string, token: string): Promise<ServerState> {
  const get = async (path: string): Promise<unknown> => {
    const body = await post(url, token, path, {});
    if (body === undefined) throw new WrongAnswer(`${path}: the connection died while the server should be up`);
    return body;
  };
  const tasks: ServerTask[] = [];
  for (let start = 0; ; start += 1000) {
    const page = (await get(`/3/tasks/get.php?fields=note,star&num=1000&start=${start}`)) as [{ total: number }, ...ServerTask[]];
    tasks.push(...page.slice(1).map((t) => t as ServerTask));
    if (start + 1000 >= page[0].total) break;
  }
  const organizers = Object.fromEntries(
    await Promise.all(ORGANIZER_KINDS.map(async (kind) => [kind, (await get(`/3/${kind}/get.php`)) as Array<{ id: number; name: string }>] as const)),
  ) as unknown as ServerState['organizers'];
  return { tasks, organizers };
}
