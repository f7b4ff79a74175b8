import { accept, endCollaboration, invite, listCollaborations, setAllowed, type Allowed } from '../features/sharing/collaborators.service.js';
import { invitationRecord } from '../features/sharing/sharing.presenter.js';
import { accountByEmail } from '../features/users/users.service.js';
import { ApiError } from '../errors.js';
import { systemClock } from '../lib/clock.js';
import type { Account, Store } from '../storage/store.js';
import { args, optional, print, required, UsageError, withStore, type Values, type Verb } from './kit.js';

/**
 * `tickler collab …`: collaborations between two accounts (docs/sharing.md), through the same
 * services as the API's additions. The account acting is named by --email; the other by --with
 * (an e-mail address or a user id).
 */
async function actor(store: Store, email: string): Promise<Account> {
  const a = await accountByEmail(store, email);
  if (!a) throw new UsageError(`no account with the e-mail address ${JSON.stringify(email)}`);
  return a;
}

function flag(v: Values, name: string, fallback: boolean): boolean {
  const raw = optional(v, name);
  if (raw === undefined) return fallback;
  if (raw !== '0' && raw !== '1') throw new UsageError(`--${name} must be 0 or 1`);
  return raw === '1';
}

function allowedOf(v: Values, fallback: Allowed = { reassign: true, share: true }): Allowed {
  return { reassign: flag(v, 'reassignable', fallback.reassign), share: flag(v, 'sharable', fallback.share) };
}

const OPTIONS = { email: { type: 'string' }, with: { type: 'string' }, reassignable: { type: 'string' }, sharable: { type: 'string' } } as const;

/** Runs one collaboration step; an API refusal (615, 616) becomes a usage error with its words. */
async function step(rest: string[], config: Parameters<Verb['run']>[1], fn: (store: Store, me: Account, v: Values) => Promise<unknown>): Promise<number> {
  const v = args(rest, OPTIONS);
  await withStore(config(), async (store) => {
    try {
      const out = await fn(store, await actor(store, required(v, 'email')), v);
      if (out !== undefined) print(out);
    } catch (err) {
      if (err instanceof ApiError) throw new UsageError(`${err.code}: ${err.desc}`);
      throw err;
    }
  });
  return 0;
}

const deps = (store: Store) => ({ store, clock: systemClock });

export const COLLAB_VERBS: Readonly<Record<string, Verb>> = {
  invite: {
    usage: 'collab invite --email E --with WHO [--reassignable 0|1] [--sharable 0|1]\n                                          invite an account (e-mail or user id) to collaborate',
    run: (rest, config) => step(rest, config, async (store, me, v) => invitationRecord(await invite(deps(store), me.pk, required(v, 'with'), allowedOf(v)))),
  },
  accept: {
    usage: 'collab accept --email E --with WHO [--reassignable 0|1] [--sharable 0|1]',
    run: (rest, config) => step(rest, config, async (store, me, v) => invitationRecord(await accept(deps(store), me.pk, required(v, 'with'), allowedOf(v)))),
  },
  allow: {
    usage: 'collab allow --email E --with WHO --reassignable 0|1 --sharable 0|1\n                                          what WHO may do to E: reassign tasks, share tasks',
    run: (rest, config) =>
      step(rest, config, async (store, me, v) => {
        // Both flags are asked for: a missing one would otherwise be silently reset.
        required(v, 'reassignable');
        required(v, 'sharable');
        return invitationRecord(await setAllowed(deps(store), me.pk, required(v, 'with'), allowedOf(v)));
      }),
  },
  end: {
    usage: 'collab end --email E --with WHO          decline, withdraw or end a collaboration',
    run: (rest, config) =>
      step(rest, config, async (store, me, v) => {
        await endCollaboration(deps(store), me.pk, required(v, 'with'));
        return { ended: required(v, 'with') };
      }),
  },
  list: {
    usage: "collab list --email E                   an account's collaborations and invitations, one JSON line each",
    run: (rest, config) =>
      step(rest, config, async (store, me) => {
        for (const c of await listCollaborations(deps(store), me.pk)) print(invitationRecord(c));
        return undefined;
      }),
  },
};
