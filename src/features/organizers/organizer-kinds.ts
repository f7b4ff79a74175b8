import type { OrganizerKind, Repos, StampName, TaskReference } from '../../storage/store.js';
import { resolveContributes, releaseContributors } from './goal-rules.js';
import type { FieldSpec, KindCodes, Row } from './organizer-fields.js';

/**
 * Everything that differs between folders, contexts, goals and locations, as data. One generic
 * service (organizers.service.ts), presenter and route registrar work from these descriptions.
 * docs/organizers.md documents each value; change both together.
 */
export interface KindSpec {
  readonly kind: OrganizerKind & TaskReference;
  /** Path segment (/3/goals/…) and XML root of lists. */
  readonly plural: string;
  /** Word used in descriptions ("goal") and XML element of one record. */
  readonly noun: string;
  readonly codes: KindCodes;
  /** Records per account; the add that would go past it fails with codes.max. */
  readonly maxRecords: number;
  /** In code points of the NFC form of the trimmed name. */
  readonly maxNameChars: number;
  /** Contexts: the spec requires `name` on edit too. */
  readonly nameRequiredOnEdit: boolean;
  /** Settable fields besides the name, in parameter order. */
  readonly fields: readonly FieldSpec[];
  /** The account stamp that every add, edit and delete of this kind moves. */
  readonly stamp: StampName;
  /** JSON keys of get, in order. */
  readonly listKeys: readonly string[];
  /** JSON keys of add and edit, and XML elements everywhere, in order. */
  readonly fullKeys: readonly string[];
  /** XML element names that differ from the JSON key (folders: ord → order). */
  readonly xmlNames: Readonly<Record<string, string>>;
  /** Completes a row before it is written (add: stored is null); may look at other records. */
  readonly prepare?: (tx: Repos, userPk: number, next: Row, stored: Row | null) => Promise<Row>;
  /** Keeps other records of the kind consistent after a write. */
  readonly afterWrite?: (tx: Repos, userPk: number, next: Row, stored: Row | null) => Promise<void>;
  /** Clears references from other records of the kind to a deleted one (tasks are handled for all kinds). */
  readonly afterDelete?: (tx: Repos, userPk: number, id: number) => Promise<void>;
}

/** "32k bytes" read as 32 KiB: the larger reading, so a client that follows either is never refused. */
const NOTE_MAX_BYTES = 32 * 1024;

const flag = (name: string, onAdd = true): FieldSpec => ({ name, type: { type: 'flag' }, initial: 0, onAdd });

const FOLDERS: KindSpec = {
  kind: 'folder',
  plural: 'folders',
  noun: 'folder',
  codes: { noName: 201, nameTaken: 202, max: 203, emptyId: 204, invalid: 205, nothingEdited: 206 },
  // No limits are published for folders: they take the contexts' (the closest kind).
  maxRecords: 1000,
  maxNameChars: 64,
  nameRequiredOnEdit: false,
  // `archived` is in the edit parameters only (compat notes); add ignores it.
  fields: [flag('private'), flag('archived', false)],
  stamp: 'lastedit_folder',
  listKeys: ['id', 'name', 'private', 'archived', 'ord'],
  fullKeys: ['id', 'name', 'private', 'archived', 'ord'],
  xmlNames: { ord: 'order' },
  // A new folder goes after the last one; ord is never renumbered (gaps after deletes are harmless: it only sorts).
  prepare: async (tx, userPk, next, stored) => (stored ? next : { ...next, ord: await tx.organizers.nextFolderOrd(userPk) }),
};

const CONTEXTS: KindSpec = {
  kind: 'context',
  plural: 'contexts',
  noun: 'context',
  codes: { noName: 301, nameTaken: 302, max: 303, emptyId: 304, invalid: 305, nothingEdited: 306 },
  maxRecords: 1000,
  maxNameChars: 64,
  nameRequiredOnEdit: true,
  fields: [flag('private')],
  stamp: 'lastedit_context',
  listKeys: ['id', 'name', 'private'],
  fullKeys: ['id', 'name', 'private'],
  xmlNames: {},
};

const GOALS: KindSpec = {
  kind: 'goal',
  plural: 'goals',
  noun: 'goal',
  codes: { noName: 401, nameTaken: 402, max: 403, emptyId: 404, invalid: 405, nothingEdited: 406 },
  maxRecords: 500,
  maxNameChars: 250,
  nameRequiredOnEdit: false,
  fields: [
    { name: 'level', type: { type: 'choice', values: [0, 1, 2] }, initial: 0, onAdd: true },
    { name: 'contributes', type: { type: 'goal-ref' }, initial: 0, onAdd: true },
    // Settable only on edit (spec 2.2): a new goal is never archived.
    flag('archived', false),
    flag('private'),
    { name: 'note', type: { type: 'text', maxBytes: NOTE_MAX_BYTES }, initial: '', onAdd: true },
  ],
  stamp: 'lastedit_goal',
  // Spec 2.2: the JSON list of get has no `private`; the XML list and add/edit responses do.
  listKeys: ['id', 'name', 'level', 'archived', 'contributes', 'note'],
  fullKeys: ['id', 'name', 'level', 'archived', 'contributes', 'private', 'note'],
  xmlNames: {},
  prepare: resolveContributes,
  afterWrite: releaseContributors,
  afterDelete: async (tx, userPk, id) => {
    await tx.organizers.clearContributions(userPk, id);
  },
};

const LOCATIONS: KindSpec = {
  kind: 'location',
  plural: 'locations',
  noun: 'location',
  codes: { noName: 501, nameTaken: 502, max: 503, emptyId: 504, invalid: 505, nothingEdited: 506 },
  maxRecords: 500,
  maxNameChars: 64,
  nameRequiredOnEdit: false,
  fields: [
    { name: 'description', type: { type: 'text', maxBytes: NOTE_MAX_BYTES }, initial: '', onAdd: true },
    { name: 'lat', type: { type: 'coordinate', limit: 90 }, initial: 0, onAdd: true },
    { name: 'lon', type: { type: 'coordinate', limit: 180 }, initial: 0, onAdd: true },
  ],
  stamp: 'lastedit_location',
  listKeys: ['id', 'name', 'description', 'lat', 'lon'],
  fullKeys: ['id', 'name', 'description', 'lat', 'lon'],
  xmlNames: {},
};

export const KINDS: readonly KindSpec[] = [FOLDERS, CONTEXTS, GOALS, LOCATIONS];
