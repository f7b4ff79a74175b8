/**
 * What the crash loop's client knows about one account: every write the server acknowledged, and
 * the writes in flight when the server was killed (their fate unknown). After each restart,
 * `reconcile` compares this with what the server holds: nothing acknowledged may be missing, no
 * batch may be half there, no edit may be older than the last acknowledged one, and nothing may
 * be there that nobody wrote. In-flight writes that turned out to have landed are adopted.
 */

export const ORGANIZER_KINDS = ['folders', 'contexts', 'goals'] as const;
export type OrganizerKind = (typeof ORGANIZER_KINDS)[number];

/** An edit writes version n as note "v<n>" and star n % 2: two fields, so half an item shows too. */
export function editFields(version: number): { note: string; star: number } {
  return { note: `v${version}`, star: version % 2 };
}

export interface ServerTask {
  readonly id: number;
  readonly title: string;
  readonly note: string;
  readonly star: number;
}

export interface ServerState {
  readonly tasks: readonly ServerTask[];
  readonly organizers: Readonly<Record<OrganizerKind, ReadonlyArray<{ readonly id: number; readonly name: string }>>>;
}

type Pending =
  | { readonly kind: 'add'; readonly titles: readonly string[] }
  | { readonly kind: 'edit'; readonly versions: ReadonlyMap<number, number> }
  | { readonly kind: 'organizer'; readonly organizer: OrganizerKind; readonly name: string };

export interface LedgerCounts {
  /** Write requests answered with success. */
  acknowledged: number;
  /** Records those answers vouched for: tasks added, task edits, organizers added. */
  acknowledgedItems: number;
  /** Write requests in flight at a kill. */
  unacknowledged: number;
  /** …of which the server turned out to have made whole, or not at all. */
  landed: number;
  notLanded: number;
}

export class Ledger {
  /** id → title and last acknowledged version. */
  private readonly tasks = new Map<number, { title: string; version: number }>();
  private readonly organizers: Record<OrganizerKind, Map<string, number>> = { folders: new Map(), contexts: new Map(), goals: new Map() };
  private pending: Pending[] = [];
  /** Tasks with an edit in flight: never two edits of one task at once, so each outcome is clear. */
  private readonly editing = new Set<number>();
  readonly counts: LedgerCounts = { acknowledged: 0, acknowledgedItems: 0, unacknowledged: 0, landed: 0, notLanded: 0 };

  get taskCount(): number {
    return this.tasks.size;
  }

  /** Up to `n` tasks that no edit in flight touches, marked as being edited, with their next versions. */
  claimForEdit(n: number, pickIndex: (size: number) => number): Map<number, number> {
    const free = [...this.tasks.keys()].filter((id) => !this.editing.has(id));
    const chosen = new Map<number, number>();
    while (chosen.size < n && free.length > 0) {
      const [id] = free.splice(pickIndex(free.length), 1) as [number];
      this.editing.add(id);
      chosen.set(id, (this.tasks.get(id)?.version ?? 0) + 1);
    }
    return chosen;
  }

  addAcknowledged(titles: readonly string[], ids: readonly number[]): void {
    this.counts.acknowledged++;
    this.counts.acknowledgedItems += titles.length;
    titles.forEach((title, i) => this.tasks.set(ids[i] as number, { title, version: 0 }));
  }

  editAcknowledged(versions: ReadonlyMap<number, number>): void {
    this.counts.acknowledged++;
    this.counts.acknowledgedItems += versions.size;
    for (const [id, version] of versions) {
      const t = this.tasks.get(id);
      if (t) t.version = version;
      this.editing.delete(id);
    }
  }

  /** An edit the server refused item by item (a bug, reported by the caller); the tasks are free again. */
  release(versions: ReadonlyMap<number, number>): void {
    for (const id of versions.keys()) this.editing.delete(id);
  }

  organizerAcknowledged(kind: OrganizerKind, name: string, id: number): void {
    this.counts.acknowledged++;
    this.counts.acknowledgedItems++;
    this.organizers[kind].set(name, id);
  }

  unacknowledged(p: Pending): void {
    this.counts.unacknowledged++;
    this.pending.push(p);
  }

  /** What is wrong with the server's state; adopts the in-flight writes that landed. */
  reconcile(server: ServerState): string[] {
    const problems: string[] = [];
    const byId = new Map(server.tasks.map((t) => [t.id, t]));
    const byTitle = new Map<string, ServerTask[]>();
    for (const t of server.tasks) byTitle.set(t.title, [...(byTitle.get(t.title) ?? []), t]);
    for (const [title, ts] of byTitle) if (ts.length > 1) problems.push(`task "${title}" was written ${ts.length} times (ids ${ts.map((t) => t.id).join(', ')})`);

    const inFlightVersion = new Map<number, number>();
    for (const p of this.pending) if (p.kind === 'edit') for (const [id, v] of p.versions) inFlightVersion.set(id, v);

    for (const [id, known] of this.tasks) {
      const stored = byId.get(id);
      if (!stored) {
        problems.push(`lost: task ${id} ("${known.title}") was acknowledged but is not there`);
        continue;
      }
      if (stored.title !== known.title) problems.push(`task ${id} is titled "${stored.title}", acknowledged as "${known.title}"`);
      const version = /^v(\d+)$/.exec(stored.note)?.[1];
      if (version === undefined || stored.star !== Number(version) % 2) {
        problems.push(`task ${id} holds note "${stored.note}" and star ${stored.star}: not one whole edit`);
        continue;
      }
      const v = Number(version);
      if (v === known.version) continue;
      if (v === inFlightVersion.get(id)) continue;
      problems.push(v < known.version ? `task ${id} went back to edit ${v}; edit ${known.version} was acknowledged` : `task ${id} holds edit ${v}, which was never sent (acknowledged ${known.version})`);
    }

    for (const p of this.pending) {
      if (p.kind === 'edit') {
        const done = [...p.versions].filter(([id, v]) => /^v(\d+)$/.exec(byId.get(id)?.note ?? '')?.[1] === String(v));
        if (done.length > 0 && done.length < p.versions.size) problems.push(`partial edit batch: ${done.length} of ${p.versions.size} edits landed`);
        this.tally(done.length > 0);
        for (const [id, v] of p.versions) {
          const t = this.tasks.get(id);
          if (t && done.some(([doneId]) => doneId === id)) t.version = v;
          this.editing.delete(id);
        }
      } else if (p.kind === 'add') {
        const found = p.titles.map((title) => byTitle.get(title)?.[0]);
        const landed = found.filter((t) => t !== undefined);
        if (landed.length > 0 && landed.length < p.titles.length) problems.push(`partial add batch: ${landed.length} of ${p.titles.length} tasks landed`);
        this.tally(landed.length > 0);
        for (const t of landed) this.tasks.set(t.id, { title: t.title, version: 0 });
      } else {
        const id = server.organizers[p.organizer].find((o) => o.name === p.name)?.id;
        this.tally(id !== undefined);
        if (id !== undefined) this.organizers[p.organizer].set(p.name, id);
      }
    }
    this.pending = [];

    for (const t of server.tasks) if (!this.tasks.has(t.id)) problems.push(`task ${t.id} ("${t.title}") is there but nobody wrote it`);
    for (const kind of Object.keys(this.organizers) as OrganizerKind[]) {
      const stored = new Map(server.organizers[kind].map((o) => [o.name, o.id]));
      for (const [name, id] of this.organizers[kind]) {
        if (stored.get(name) !== id) problems.push(`lost: ${kind} "${name}" (id ${id}) was acknowledged but is ${stored.has(name) ? `id ${stored.get(name)}` : 'not there'}`);
      }
      for (const [name, id] of stored) if (!this.organizers[kind].has(name)) problems.push(`${kind} "${name}" (id ${id}) is there but nobody wrote it`);
    }
    return problems;
  }

  private tally(landed: boolean): void {
    if (landed) this.counts.landed++;
    else this.counts.notLanded++;
  }
}
