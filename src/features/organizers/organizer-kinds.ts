import { tableCode as errorCode } from '../../errors.js';
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
  /** Settable fields besides the name, in the order of the record's keys. */
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
  /**
   * Clears references from other records to a deleted one (tasks are handled for all kinds), at
   * the delete's clock second `now`.
   */
  readonly afterDelete?: (tx: Repos, userPk: number, id: number, now: number) => Promise<void>;
}

/**
 * What a kind states; defineKind derives the rest (noun, plural, stamp, codes, key lists) the same
 * way for all four, so the key lists cannot drift from the fields.
 */
interface KindDefinition {
  readonly kind: KindSpec['kind'];
  /** The kind's codes are base + 1 (no name) … base + 6 (nothing edited), and base + 11 (malformed). */
  readonly codeBase: number;
  readonly maxRecords: number;
  readonly maxNameChars: number;
  readonly nameRequiredOnEdit?: boolean;
  readonly fields: readonly FieldSpec[];
  /** Keys shown after the fields that no call sets (folders: ord). */
  readonly shownKeys?: readonly string[];
  /** Keys the JSON list of get leaves out. */
  readonly notListed?: readonly string[];
  readonly xmlNames?: Readonly<Record<string, string>>;
  readonly prepare?: KindSpec['prepare'];
  readonly afterWrite?: KindSpec['afterWrite'];
  readonly afterDelete?: KindSpec['afterDelete'];
}

function defineKind({ codeBase: base, nameRequiredOnEdit = false, shownKeys = [], notListed = [], xmlNames = {}, ...rest }: KindDefinition): KindSpec {
  const fullKeys = ['id', 'name', ...rest.fields.map((f) => f.name), ...shownKeys];
  return {
    ...rest,
    plural: `${rest.kind}s`,
    noun: rest.kind,
    codes: {
      noName: errorCode(base + 1),
      nameTaken: errorCode(base + 2),
      max: errorCode(base + 3),
      emptyId: errorCode(base + 4),
      invalid: errorCode(base + 5),
      nothingEdited: errorCode(base + 6),
      malformed: errorCode(base + 11),
    },
    nameRequiredOnEdit,
    stamp: `lastedit_${rest.kind}`,
    fullKeys,
    listKeys: fullKeys.filter((key) => !notListed.includes(key)),
    xmlNames,
  };
}

/** "32k bytes" read as 32 KiB: the larger reading, so a client that follows either is never refused. */
const NOTE_MAX_BYTES = 32 * 1024;

const flag = (name: string, onAdd = true): FieldSpec => ({ name, type: { type: 'flag' }, initial: 0, onAdd });

const FOLDERS = defineKind({
  kind: 'folder',
  codeBase: 200,
  // No limits are published for folders: they take the contexts' (the closest kind).
  maxRecords: 1000,
  maxNameChars: 64,
  // `archived` is in the edit parameters only (compat notes); add ignores it.
  fields: [flag('private'), flag('archived', false)],
  shownKeys: ['ord'],
  xmlNames: { ord: 'order' },
  // A new folder goes after the last one; ord is never renumbered (gaps after deletes are harmless: it only sorts).
  prepare: async (tx, userPk, next, stored) => (stored ? next : { ...next, ord: await tx.organizers.nextFolderOrd(userPk) }),
  // Notes are filed in folders too: deleting one files its notes under no folder, as an edit of
  // those notes (their modified and lastedit_note move, only when a note was in it).
  afterDelete: async (tx, userPk, id, now) => {
    if (!(await tx.documents.hasFolder(userPk, id))) return;
    const moved = await tx.accounts.touch(userPk, ['lastedit_note'], now);
    await tx.documents.clearFolder(userPk, id, moved.lastedit_note as number);
  },
});

const CONTEXTS = defineKind({
  kind: 'context',
  codeBase: 300,
  maxRecords: 1000,
  maxNameChars: 64,
  nameRequiredOnEdit: true,
  fields: [flag('private')],
});

const GOALS = defineKind({
  kind: 'goal',
  codeBase: 400,
  maxRecords: 500,
  maxNameChars: 250,
  // In the order of the record's keys (spec 2.2), which is not the order the spec lists the parameters in.
  fields: [
    { name: 'level', type: { type: 'choice', values: [0, 1, 2] }, initial: 0, onAdd: true },
    // Settable only on edit (spec 2.2): a new goal is never archived.
    flag('archived', false),
    { name: 'contributes', type: { type: 'goal-ref' }, initial: 0, onAdd: true },
    flag('private'),
    { name: 'note', type: { type: 'text', maxBytes: NOTE_MAX_BYTES }, initial: '', onAdd: true },
  ],
  // Spec 2.2: the JSON list of get has no `private`; the XML list and add/edit responses do.
  notListed: ['private'],
  prepare: resolveContributes,
  afterWrite: releaseContributors,
  afterDelete: async (tx, userPk, id) => {
    await tx.organizers.clearContributions(userPk, id);
  },
});

const LOCATIONS = defineKind({
  kind: 'location',
  codeBase: 500,
  maxRecords: 500,
  maxNameChars: 64,
  fields: [
    { name: 'description', type: { type: 'text', maxBytes: NOTE_MAX_BYTES }, initial: '', onAdd: true },
    { name: 'lat', type: { type: 'coordinate', limit: 90 }, initial: 0, onAdd: true },
    { name: 'lon', type: { type: 'coordinate', limit: 180 }, initial: 0, onAdd: true },
  ],
});

export const KINDS: readonly KindSpec[] = [FOLDERS, CONTEXTS, GOALS, LOCATIONS];
