import { Browser, hiddenInputs } from '../browser.js';
import { api, authorize, createAccount, createOrganizer, issueCode, PASSWORD, type TestApp, type TestContext } from '../harness.js';
import { randomHex } from '../../src/lib/crypto.js';
import type { ProLevel } from '../../src/storage/store.js';
import type { Secrets } from './wire.js';

/**
 * The browser that fetches the CSRF cookie and signs in comes from an address of its own: the
 * fuzzer's failed sign-ins (from 127.0.0.1) must not throttle it.
 */
const SETUP_ADDRESS = '10.9.9.9';

/**
 * A fresh account for the fuzzer, with everything its requests may name: tokens (one per scope, and
 * a refresh token and a code of other grants, so that replaying them never revokes the main
 * token), a CSRF cookie and a signed-in session for the authorize page, and a few folders,
 * contexts, goals, locations and tasks with small ids for edits and references to find.
 */
export async function newSession(ctx: TestContext, app: TestApp, n: number): Promise<Secrets> {
  const pro = (n % 3) as ProLevel;
  const account = await createAccount(ctx, { pro });
  const token = (await authorize(ctx, account, app, 'basic tasks write share')).access_token;
  const basicToken = (await authorize(ctx, account, app, 'basic')).access_token;
  const refreshToken = (await authorize(ctx, account, app)).refresh_token;
  const code = await issueCode(ctx, account, app);
  const browser = new Browser(ctx.app, SETUP_ADDRESS);
  const query = new URLSearchParams({ response_type: 'code', client_id: app.clientId, state: 'fuzz', scope: 'basic tasks write' });
  const page = await browser.get(`/3/account/authorize.php?${query.toString()}`);
  const hidden = hiddenInputs(page.body);
  const csrf = hidden['_csrf'];
  const csrfCookie = [...browser.cookies].find(([name]) => name.endsWith('tickler_csrf'));
  if (!csrf || !csrfCookie) throw new Error(`fuzz session: no CSRF token on the authorize page (${page.statusCode})`);
  const signedIn = await browser.post('/3/account/authorize.php', { ...hidden, email: account.email, password: PASSWORD });
  const session = [...browser.cookies].find(([name]) => name.endsWith('tickler_session'));
  if (signedIn.statusCode !== 303 || !session) throw new Error(`fuzz session: sign-in answered ${signedIn.statusCode}`);
  const sessionCsrf = hiddenInputs((await browser.get(`/3/account/authorize.php?${query.toString()}`)).body)['_csrf'];
  if (!sessionCsrf) throw new Error('fuzz session: no CSRF token on the consent page');

  for (const kind of ['folder', 'context', 'goal', 'location'] as const) {
    for (let i = 1; i <= 4; i++) await createOrganizer(ctx, account, kind, `${kind} ${i}`, kind === 'goal' ? { level: i % 3 } : {});
  }
  const tasks = Array.from({ length: 12 }, (_, i) => ({
    title: `seed ${i}`,
    folder: i % 5,
    context: i % 4,
    goal: i % 3,
    duedate: 1_767_268_800 + i * 86_400,
    repeat: ['', 'FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO,FR', 'FREQ=MONTHLY;BYMONTHDAY=-1;FROMCOMP'][i % 4],
    note: `note ${i}`,
  }));
  const added = await api(ctx, token, '/3/tasks/add.php', { tasks: JSON.stringify(tasks) });
  if (added.statusCode !== 200) throw new Error(`fuzz session: seeding tasks answered ${added.statusCode}`);
  if (pro > 0) await api(ctx, token, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'child', parent: 1 }, { title: 'child 2', parent: 2 }]) });
  // A collaborator, and (where the account's pro allows sharing) task 1 shared with them: share,
  // reassign and the edits of a joint task get past "not a collaborator".
  const partner = await createAccount(ctx, { pro: 1 });
  const partnerToken = (await authorize(ctx, partner, app, 'basic tasks write share')).access_token;
  await api(ctx, token, '/3/account/collaborators_invite.php', { invite: partner.userid });
  await api(ctx, partnerToken, '/3/account/collaborators_accept.php', { id: account.userid });
  await api(ctx, token, '/3/tasks/share.php', { id: '1', share: JSON.stringify([partner.userid]) });

  return {
    token,
    basicToken,
    unknownToken: randomHex(20),
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    code,
    refreshToken,
    redirectUri: app.redirectUri,
    csrf,
    sessionCsrf,
    csrfCookie: `${csrfCookie[0]}=${csrfCookie[1]}`,
    sessionCookie: `${session[0]}=${session[1]}`,
    email: account.email,
    password: PASSWORD,
    userid: account.userid,
    partner: partner.userid,
  };
}
