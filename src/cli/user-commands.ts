import { createFeed, listFeeds, revokeFeed } from '../features/feeds/feeds.service.js';
import { createAppPassword, listAppPasswords, revokeAppPassword } from '../features/users/app-passwords.service.js';
import { ADMIN_RESET_SECONDS, makeResetLink } from '../features/users/links.service.js';
import { accountByEmail, createUser, deleteAccount, setPassword } from '../features/users/users.service.js';
import { systemClock, unixSeconds } from '../lib/clock.js';
import { connectedApps } from '../oauth/grants.service.js';
import type { Account, AppPassword, CalendarFeed, Store } from '../storage/store.js';
import { args, optional, print, required, UsageError, withStore, type Verb } from './kit.js';

/** An account as the commands print it (never its password hash). */
export function accountRecord(a: Account): Record<string, unknown> {
  return { userid: a.userid, email: a.email, alias: a.alias, pro: a.pro, admin: a.isAdmin, created: a.createdAt };
}

/** An app password as `user app-password --list` prints it (never the password or its hash). */
function appPasswordRecord(p: AppPassword): Record<string, unknown> {
  return { id: p.id, name: p.name, read_only: p.readOnly, created: p.createdAt, last_used: p.lastUsedAt, last_device: p.lastDevice };
}

/** A calendar feed as `user feed --list` prints it (never its address: only its hash is kept). */
function feedRecord(f: CalendarFeed): Record<string, unknown> {
  return { id: f.id, folder: f.folder, created: f.createdAt, last_fetched: f.lastFetchedAt };
}

async function account(store: Store, email: string): Promise<Account> {
  const a = await accountByEmail(store, email);
  if (!a) throw new UsageError(`no account with the e-mail address ${JSON.stringify(email)}`);
  return a;
}

export const USER_VERBS: Readonly<Record<string, Verb>> = {
  add: {
    usage: 'user add --email E --password P [--alias A] [--pro 0|1|2] [--admin]\n                                          create an account; prints {"userid":"…"}',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, password: { type: 'string' }, alias: { type: 'string' }, pro: { type: 'string' }, admin: { type: 'boolean' } });
      const pro = optional(v, 'pro');
      if (pro !== undefined && !/^[012]$/.test(pro)) throw new UsageError('--pro must be 0, 1 or 2');
      const input = { email: required(v, 'email'), password: required(v, 'password'), alias: optional(v, 'alias'), pro: pro === undefined ? undefined : Number(pro), isAdmin: v['admin'] === true };
      const created = await withStore(config(), (store) => createUser({ store, clock: systemClock }, input));
      print({ userid: created.userid });
      return 0;
    },
  },
  list: {
    usage: 'user list                               list accounts, one JSON line each',
    async run(rest, config) {
      args(rest, {});
      for (const a of await withStore(config(), (store) => store.read.accounts.list())) print(accountRecord(a));
      return 0;
    },
  },
  show: {
    usage: 'user show --email E                     an account with its settings, apps and connected apps',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' } });
      await withStore(config(), async (store) => {
        const a = await account(store, required(v, 'email'));
        const apps = await store.read.clients.list(a.pk);
        const grants = await connectedApps({ store, clock: systemClock }, { userPk: a.pk });
        print({ ...accountRecord(a), ...a.prefs, apps: apps.map((c) => c.clientId), connected_apps: grants.map((g) => ({ grant: g.grant.id, client_id: g.client.clientId })) });
      });
      return 0;
    },
  },
  passwd: {
    usage: "user passwd --email E --password P      set an account's password; ends its browser sessions",
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, password: { type: 'string' } });
      await withStore(config(), async (store) => {
        const a = await account(store, required(v, 'email'));
        await setPassword({ store }, a.pk, required(v, 'password'));
        print({ userid: a.userid, password: 'changed' });
      });
      return 0;
    },
  },
  'reset-link': {
    usage: `user reset-link --email E               a one-time link to choose a new password (${ADMIN_RESET_SECONDS / 3600} hours); prints {"url":"…","expires":…}`,
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' } });
      const c = config();
      await withStore(c, async (store) => {
        const a = await account(store, required(v, 'email'));
        const link = await makeResetLink({ store, clock: systemClock, config: c }, a.pk, ADMIN_RESET_SECONDS);
        print({ userid: a.userid, url: link.url, expires: link.expiresAt });
      });
      return 0;
    },
  },
  admin: {
    usage: 'user admin --email E [--off]            make an account an admin (--off: no longer)',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, off: { type: 'boolean' } });
      await withStore(config(), async (store) => {
        const a = await account(store, required(v, 'email'));
        await store.transaction((tx) => tx.accounts.setAdmin(a.pk, v['off'] !== true));
        print({ userid: a.userid, admin: v['off'] !== true });
      });
      return 0;
    },
  },
  'app-password': {
    usage:
      'user app-password --email E --name NAME [--read-only] | --list | --revoke ID\n' +
      '                                          make an app password for a CalDAV app; prints {"id":…,"password":"…"}\n' +
      '                                          (shown once). --list: one JSON line each; --revoke: stops it (a running\n' +
      '                                          server may accept it for TOKEN_CACHE_SECONDS)',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, name: { type: 'string' }, 'read-only': { type: 'boolean' }, list: { type: 'boolean' }, revoke: { type: 'string' } });
      const name = optional(v, 'name');
      const revoke = optional(v, 'revoke');
      if ([name !== undefined, v['list'] === true, revoke !== undefined].filter(Boolean).length !== 1) throw new UsageError('give one of --name, --list or --revoke');
      if (v['read-only'] === true && name === undefined) throw new UsageError('--read-only goes with --name');
      if (revoke !== undefined && !/^\d{1,15}$/.test(revoke)) throw new UsageError('--revoke must be an app password id (--list shows them)');
      await withStore(config(), async (store) => {
        const a = await account(store, required(v, 'email'));
        if (v['list'] === true) {
          for (const p of await listAppPasswords({ store }, a.pk)) print(appPasswordRecord(p));
        } else if (revoke !== undefined) {
          if (!(await revokeAppPassword({ store }, a.pk, Number(revoke)))) throw new UsageError(`no app password ${revoke} of ${a.email}`);
          print({ id: Number(revoke), revoked: true });
        } else {
          const made = await createAppPassword({ store, clock: systemClock }, a.pk, { name: name as string, readOnly: v['read-only'] === true });
          print({ id: made.appPassword.id, password: made.password });
        }
      });
      return 0;
    },
  },
  feed: {
    usage:
      'user feed --email E [--folder ID] | --list | --revoke ID\n' +
      '                                          make a calendar feed of the account\'s tasks with a due date (or of one\n' +
      '                                          folder\'s); prints {"id":…,"url":"…"} (shown once). --list: one JSON line\n' +
      '                                          each; --revoke: its address stops answering',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, folder: { type: 'string' }, list: { type: 'boolean' }, revoke: { type: 'string' } });
      const folder = optional(v, 'folder');
      const revoke = optional(v, 'revoke');
      if (v['list'] === true && revoke !== undefined) throw new UsageError('give --list or --revoke, not both');
      if (folder !== undefined && (v['list'] === true || revoke !== undefined)) throw new UsageError('--folder goes with making a feed, not with --list or --revoke');
      if (folder !== undefined && !/^[1-9][0-9]{0,9}$/.test(folder)) throw new UsageError('--folder must be a folder id (folders/get.php lists them)');
      if (revoke !== undefined && !/^\d{1,15}$/.test(revoke)) throw new UsageError('--revoke must be a calendar feed id (--list shows them)');
      const c = config();
      await withStore(c, async (store) => {
        const a = await account(store, required(v, 'email'));
        if (v['list'] === true) {
          for (const f of await listFeeds({ store }, a.pk)) print(feedRecord(f));
        } else if (revoke !== undefined) {
          if (!(await revokeFeed({ store }, a.pk, Number(revoke)))) throw new UsageError(`no calendar feed ${revoke} of ${a.email}`);
          print({ id: Number(revoke), revoked: true });
        } else {
          const made = await createFeed({ store, clock: systemClock, config: c }, a.pk, { folder: folder === undefined ? null : Number(folder) });
          print({ id: made.feed.id, url: made.addresses.https });
        }
      });
      return 0;
    },
  },
  delete: {
    usage: 'user delete --email E                   delete an account and every record of it',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' } });
      await withStore(config(), async (store) => {
        const a = await account(store, required(v, 'email'));
        await deleteAccount({ store }, a.pk);
        print({ userid: a.userid, deleted: unixSeconds(systemClock) });
      });
      return 0;
    },
  },
};
