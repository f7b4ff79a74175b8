import type { OrganizerKind, OrganizerTypes } from '../../storage/store.js';

/**
 * A stored record of each kind with default values, for tests that write organisers straight
 * through the store. Kept apart from organizers.test-kit.ts, which builds on the test harness, so
 * that the harness can use it too without the two importing each other.
 */
export function newOrganizer<K extends OrganizerKind>(kind: K, id: number, name: string): OrganizerTypes[K] {
  const records: { readonly [k in OrganizerKind]: OrganizerTypes[k] } = {
    folder: { id, name, private: 0, archived: 0, ord: id },
    context: { id, name, private: 0 },
    goal: { id, name, level: 0, contributes: 0, archived: 0, private: 0, note: '' },
    location: { id, name, description: '', lat: 0, lon: 0 },
  };
  return records[kind];
}
