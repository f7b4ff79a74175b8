import { accountByEmail } from '../features/users/users.service.js';
import { systemClock } from '../lib/clock.js';
import { deleteClient, registerClient, rotateSecret, setRedirects } from '../oauth/clients.service.js';
import { connectedApps, revokeGrant } from '../oauth/grants.service.js';
import type { Client, Grant, Store, WebhookEndpoint } from '../storage/store.js';
import { addWebhook, removeWebhook, webhooksOf } from '../webhooks/endpoints.service.js';
import { args, list, optional, print, required, UsageError, withStore, type Verb } from './kit.js';

function appRecord(c: Client, owner: string | null): Record<string, unknown> {
  return { client_id: c.clientId, name: c.name, redirect_uris: c.redirectUris, website: c.website, owner, created: c.createdAt };
}

async function ownerEmail(store: Store, c: Client): Promise<string | null> {
  return c.ownerPk === null ? null : ((await store.read.accounts.get(c.ownerPk))?.email ?? null);
}

async function app(store: Store, clientId: string): Promise<Client> {
  const c = await store.read.clients.byClientId(clientId);
  if (!c) throw new UsageError(`no app with the client id ${JSON.stringify(clientId)}`);
  return c;
}

function webhookRecord(e: WebhookEndpoint, clientId: string): Record<string, unknown> {
  return { id: e.id, client_id: clientId, url: e.url, created: e.createdAt, failing_since: e.failingSince, disabled: e.disabledAt };
}

/** `app webhook add|list|remove`: an app's webhook endpoints (docs/sync.md). */
const WEBHOOK_VERBS: Readonly<Record<string, Verb>> = {
  add: {
    usage: 'app webhook add --client-id C --url URL\n                                          add a webhook endpoint (https, a public address); prints {"id":"ep_…","secret":"whsec_…"}',
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' }, url: { type: 'string' } });
      const checked = config();
      const endpoint = await withStore(checked, async (store) => addWebhook({ store, clock: systemClock, config: checked }, await app(store, required(v, 'client-id')), required(v, 'url')));
      print({ id: endpoint.id, secret: endpoint.secret });
      return 0;
    },
  },
  list: {
    usage: "app webhook list --client-id C          the app's webhook endpoints (without secrets), one JSON line each",
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' } });
      await withStore(config(), async (store) => {
        const c = await app(store, required(v, 'client-id'));
        for (const e of await webhooksOf({ store }, c)) print(webhookRecord(e, c.clientId));
      });
      return 0;
    },
  },
  remove: {
    usage: 'app webhook remove --client-id C --id ID\n                                          remove a webhook endpoint with the deliveries it still owes',
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' }, id: { type: 'string' } });
      await withStore(config(), async (store) => {
        const c = await app(store, required(v, 'client-id'));
        const id = required(v, 'id');
        if (!(await removeWebhook({ store }, c, id))) throw new UsageError(`no webhook endpoint ${JSON.stringify(id)} of that app`);
        print({ id, removed: true });
      });
      return 0;
    },
  },
};

export const APP_VERBS: Readonly<Record<string, Verb>> = {
  add: {
    usage:
      'app add --name N --redirect-uri URI [--redirect-uri URI…] [--website W] [--owner EMAIL]\n                                          register an app; prints {"client_id":"…","client_secret":"…"}',
    async run(rest, config) {
      const v = args(rest, { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, website: { type: 'string' }, owner: { type: 'string' } });
      const redirectUris = list(v, 'redirect-uri');
      if (redirectUris.length === 0) throw new UsageError('--redirect-uri is required');
      const registered = await withStore(config(), async (store) => {
        const ownerArg = optional(v, 'owner');
        const owner = ownerArg === undefined ? undefined : await accountByEmail(store, ownerArg);
        if (owner === null) throw new UsageError(`--owner: no account with the e-mail address ${JSON.stringify(ownerArg)}`);
        return registerClient({ store, clock: systemClock }, { name: required(v, 'name'), redirectUris, website: optional(v, 'website'), ...(owner && { ownerPk: owner.pk }) });
      });
      print({ client_id: registered.client.clientId, client_secret: registered.clientSecret });
      return 0;
    },
  },
  list: {
    usage: 'app list                                list registered apps (without secrets), one JSON line each',
    async run(rest, config) {
      args(rest, {});
      await withStore(config(), async (store) => {
        for (const c of await store.read.clients.list()) print(appRecord(c, await ownerEmail(store, c)));
      });
      return 0;
    },
  },
  show: {
    usage: 'app show --client-id C                  an app, with how many people use it',
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' } });
      await withStore(config(), async (store) => {
        const c = await app(store, required(v, 'client-id'));
        const users = (await connectedApps({ store, clock: systemClock }, { clientPk: c.pk })).length;
        print({ ...appRecord(c, await ownerEmail(store, c)), icon: c.iconUpdatedAt !== null, connected_grants: users });
      });
      return 0;
    },
  },
  'rotate-secret': {
    usage: 'app rotate-secret --client-id C         a new secret (the old one stops at once); prints {"client_id":"…","client_secret":"…"}',
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' } });
      await withStore(config(), async (store) => {
        const c = await app(store, required(v, 'client-id'));
        print({ client_id: c.clientId, client_secret: await rotateSecret({ store }, c) });
      });
      return 0;
    },
  },
  redirects: {
    usage: "app redirects --client-id C [--add URI]… [--remove URI]…\n                                          change an app's redirect addresses; prints them",
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' }, add: { type: 'string', multiple: true }, remove: { type: 'string', multiple: true } });
      await withStore(config(), async (store) => {
        let c = await app(store, required(v, 'client-id'));
        const add = list(v, 'add');
        const remove = list(v, 'remove');
        const unknown = remove.find((u) => !c.redirectUris.includes(u));
        if (unknown !== undefined) throw new UsageError(`--remove: ${JSON.stringify(unknown)} is not a redirect address of the app`);
        if (add.length > 0 || remove.length > 0) c = await setRedirects({ store }, c, [...c.redirectUris.filter((u) => !remove.includes(u)), ...add]);
        print({ client_id: c.clientId, redirect_uris: c.redirectUris });
      });
      return 0;
    },
  },
  webhook: {
    usage: Object.values(WEBHOOK_VERBS)
      .map((w) => w.usage)
      .join('\n  '),
    async run(rest, config) {
      const [verb, ...more] = rest;
      const found = verb !== undefined && Object.hasOwn(WEBHOOK_VERBS, verb) ? WEBHOOK_VERBS[verb] : undefined;
      if (!found) throw new UsageError(`app webhook needs a verb: ${Object.keys(WEBHOOK_VERBS).join(', ')}`);
      return found.run(more, config);
    },
  },
  delete: {
    usage: 'app delete --client-id C                delete an app; every grant of it ends',
    async run(rest, config) {
      const v = args(rest, { 'client-id': { type: 'string' } });
      await withStore(config(), async (store) => {
        const c = await app(store, required(v, 'client-id'));
        await deleteClient({ store }, c);
        print({ client_id: c.clientId, deleted: true });
      });
      return 0;
    },
  },
};

function grantRecord(g: Grant, clientId: string, email: string | null): Record<string, unknown> {
  return { id: g.id, email, client_id: clientId, scope: g.scope, created: g.createdAt, last_used: g.lastUsedAt, expires: g.expiresAt, device: g.device, os: g.os };
}

/** The filter of grant list and revoke: an account, an app, or both. */
async function grantFilter(store: Store, email: string | undefined, clientId: string | undefined): Promise<{ userPk?: number; clientPk?: number }> {
  const filter: { userPk?: number; clientPk?: number } = {};
  if (email !== undefined) {
    const a = await accountByEmail(store, email);
    if (!a) throw new UsageError(`no account with the e-mail address ${JSON.stringify(email)}`);
    filter.userPk = a.pk;
  }
  if (clientId !== undefined) filter.clientPk = (await app(store, clientId)).pk;
  return filter;
}

export const GRANT_VERBS: Readonly<Record<string, Verb>> = {
  list: {
    usage: 'grant list [--email E] [--client-id C]  authorizations that can still be used, one JSON line each',
    async run(rest, config) {
      const v = args(rest, { email: { type: 'string' }, 'client-id': { type: 'string' } });
      await withStore(config(), async (store) => {
        const filter = await grantFilter(store, optional(v, 'email'), optional(v, 'client-id'));
        for (const { grant, client } of await connectedApps({ store, clock: systemClock }, filter)) {
          print(grantRecord(grant, client.clientId, (await store.read.accounts.get(grant.userPk))?.email ?? null));
        }
      });
      return 0;
    },
  },
  revoke: {
    usage:
      'grant revoke --id N | --email E [--client-id C]\n                                          end authorizations and their tokens (a running server may honour a\n                                          cached access token for TOKEN_CACHE_SECONDS); prints {"revoked":[ids]}',
    async run(rest, config) {
      const v = args(rest, { id: { type: 'string' }, email: { type: 'string' }, 'client-id': { type: 'string' } });
      const id = optional(v, 'id');
      const email = optional(v, 'email');
      if ((id === undefined) === (email === undefined)) throw new UsageError('give either --id or --email');
      if (id !== undefined && !/^\d{1,15}$/.test(id)) throw new UsageError('--id must be a grant id (grant list shows them)');
      await withStore(config(), async (store) => {
        const deps = { store, clock: systemClock, accessTokens: { forgetGrant: () => undefined } };
        const ids =
          id !== undefined
            ? [Number(id)]
            : (await connectedApps(deps, await grantFilter(store, email, optional(v, 'client-id')))).map((g) => g.grant.id);
        const revoked: number[] = [];
        for (const g of ids) if (await revokeGrant(deps, g, 'revoked with the command line')) revoked.push(g);
        if (id !== undefined && revoked.length === 0) throw new UsageError(`no grant ${id} that can be revoked`);
        print({ revoked });
      });
      return 0;
    },
  },
};
