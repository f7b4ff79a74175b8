/**
 * Folders, contexts, goals and locations: the organisers a task points at. One repository serves
 * all four kinds; each kind has its own record type.
 */
export interface Folder {
  readonly id: number;
  readonly name: string;
  readonly private: number;
  readonly archived: number;
  /** Position in the folder list (1 = top); assigned on add. */
  readonly ord: number;
}

export interface Context {
  readonly id: number;
  readonly name: string;
  readonly private: number;
}

export interface Goal {
  readonly id: number;
  readonly name: string;
  /** 0 lifetime, 1 long-term, 2 short-term. */
  readonly level: number;
  /** The higher-level goal this one contributes to, or 0. */
  readonly contributes: number;
  readonly archived: number;
  readonly private: number;
  readonly note: string;
}

export interface Location {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly lat: number;
  readonly lon: number;
}

export interface OrganizerTypes {
  readonly folder: Folder;
  readonly context: Context;
  readonly goal: Goal;
  readonly location: Location;
}

export type OrganizerKind = keyof OrganizerTypes;

export interface OrganizersRepo {
  /** All records of a kind in the account, ordered by id (folders: by ord, then id). */
  list<K extends OrganizerKind>(userPk: number, kind: K): Promise<Array<OrganizerTypes[K]>>;
  get<K extends OrganizerKind>(userPk: number, kind: K, id: number): Promise<OrganizerTypes[K] | null>;
  exists(userPk: number, kind: OrganizerKind, id: number): Promise<boolean>;
  count(userPk: number, kind: OrganizerKind): Promise<number>;
  /** The ord a new folder takes: after the last one. */
  nextFolderOrd(userPk: number): Promise<number>;
  /**
   * Throws UniqueViolation('name') when another record of the kind in the account has the same name
   * as names are compared (trimmed, NFC, lower-cased). This is the only name check: services rely on it.
   */
  insert<K extends OrganizerKind>(userPk: number, kind: K, record: OrganizerTypes[K]): Promise<void>;
  /** Writes every field of the record with this id; the same name rule as insert. */
  update<K extends OrganizerKind>(userPk: number, kind: K, record: OrganizerTypes[K]): Promise<void>;
  remove(userPk: number, kind: OrganizerKind, id: number): Promise<boolean>;
  /**
   * Sets `contributes` to 0 on the goals that contributed to `goalId` (with `maxLevel`: only those
   * whose level is at most that number); returns how many.
   */
  clearContributions(userPk: number, goalId: number, maxLevel?: number): Promise<number>;
}
