import type { Repos } from '../../storage/store.js';
import type { Row } from './organizer-fields.js';

/**
 * The goal hierarchy. Invariant kept by every write: a goal's `contributes` is 0 or the id of a
 * goal of a strictly higher rank (a lower level number: 0 lifetime, 1 long-term, 2 short-term).
 * Levels strictly fall along any chain, so a chain holds at most three goals and can never come
 * back to where it started: no cycle check is needed beyond the invariant.
 */

/**
 * Applies the spec's "an invalid id is reset to 0" to the row about to be written: the goal itself,
 * an unknown id, or a goal that does not rank higher all become 0. Archived goals stay valid
 * targets (only deleted ones are invalid), as for tasks.
 */
export async function resolveContributes(tx: Repos, userPk: number, next: Row, stored: Row | null): Promise<Row> {
  const target = next['contributes'];
  if (target === 0 || typeof target !== 'number') return next;
  if (target === next['id']) return { ...next, contributes: 0 };
  // The stored pair already meets the invariant (kept by every write and delete): nothing to look up.
  if (stored !== null && stored['contributes'] === target && stored['level'] === next['level']) return next;
  const goal = await tx.organizers.get(userPk, 'goal', target);
  return goal && goal.level < (next['level'] as number) ? next : { ...next, contributes: 0 };
}

/**
 * After a goal's level changed: goals that contributed to it and no longer rank below it stop
 * contributing (set to 0), as they would if it had been deleted. Otherwise raising a short-term
 * goal to lifetime could leave a lifetime goal contributing to a short-term one, the first step
 * towards a cycle.
 */
export async function releaseContributors(tx: Repos, userPk: number, next: Row, stored: Row | null): Promise<void> {
  if (stored === null || stored['level'] === next['level']) return;
  // Those no longer ranking below it: a level number at most its new one.
  await tx.organizers.clearContributions(userPk, next['id'] as number, next['level'] as number);
}
