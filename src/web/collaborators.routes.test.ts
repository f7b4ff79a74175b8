import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, formInputs } from '../../test/browser.js';
import { api, signIn, testContext, type SignedIn, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { addTask, collaborate, rows, share } from '../features/sharing/sharing.test-kit.js';

/**
 * The collaborators page: each action is the collaborators service's, visible through the API
 * afterwards; refusals in the service's words; one account never reaches another pair.
 */

const PAGE = '/account/collaborators';
const SCOPE = 'basic tasks write share';

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

interface Person extends SignedIn {
  readonly b: Browser;
}

async function person(alias?: string): Promise<Person> {
  const s = await signIn(ctx, { pro: 1, scope: SCOPE });
  if (alias) await ctx.deps.store.transaction(async (tx) => tx.accounts.update(s.account.pk, { alias }));
  return { ...s, b: await signedInBrowser(ctx, s.account) };
}

/** Posts one of the page's forms as the browser would: its CSRF token, and the fields given. */
async function post(p: Person, action: string, fields: Record<string, string>) {
  const page = await p.b.get(PAGE);
  assert.equal(page.statusCode, 200);
  return p.b.post(`${PAGE}/${action}`, { _csrf: formInputs(page.body, `${PAGE}/invite`)['_csrf'], ...fields });
}

async function collaborators(p: SignedIn): Promise<Array<Record<string, unknown>>> {
  return (await api(ctx, p.token, '/3/account/collaborators.php')).json();
}

async function invitations(p: SignedIn): Promise<Array<Record<string, unknown>>> {
  return (await api(ctx, p.token, '/3/account/invitations.php')).json();
}

describe('the collaborators page', () => {
  it('invite by e-mail, accept, change the flags, end: each visible through the API at once', async () => {
    const ann = await person();
    const bob = await person();
    const empty = await ann.b.get(PAGE);
    assert.match(text(empty), /No collaborators yet/);
    assert.match(text(empty), /Ending a collaboration also ends the tasks you share/);

    const sent = await landed(ann.b, await post(ann, 'invite', { who: ` ${bob.account.email.toUpperCase()} `, reassignable: '1' }));
    assert.match(text(sent), /Invitation sent to Tester/);
    assert.match(text(sent), new RegExp(`Invitations you sent .*${bob.account.userid}`));
    assert.deepEqual((await invitations(bob)).map((i) => [i['id'], i['state'], i['reassignable'], i['sharable']]), [[ann.account.userid, 'received', 1, 0]]);

    const waiting = await bob.b.get(PAGE);
    assert.match(text(waiting), new RegExp(`Invitations to you .*${ann.account.userid}.*Accept.*Decline`));
    const accepted = await landed(bob.b, await post(bob, 'accept', { id: ann.account.userid }));
    assert.match(text(accepted), /You and Tester are now collaborators/);
    assert.deepEqual(await collaborators(ann), [{ id: bob.account.userid, name: 'Tester', reassignable: 1, sharable: 1 }]);
    assert.deepEqual(await collaborators(bob), [{ id: ann.account.userid, name: 'Tester', reassignable: 1, sharable: 0 }]);

    // Bob lets Ann share tasks with him but no longer reassign them (the unticked box is not sent).
    const saved = await landed(bob.b, await post(bob, 'allow', { id: ann.account.userid, sharable: '1' }));
    assert.match(text(saved), /Saved what Tester may do/);
    assert.deepEqual(await collaborators(ann), [{ id: bob.account.userid, name: 'Tester', reassignable: 0, sharable: 1 }]);
    assert.match(text(saved), /Tester lets you reassign tasks to them, not share tasks with them/);

    // Ending removes the joint task's copy from the other list, as the page says.
    const task = await addTask(ctx, ann, { title: 'Joint' });
    assert.equal((await share(ctx, ann, task.id, [bob.account.userid])).statusCode, 200);
    assert.equal((await rows(ctx, bob)).length, 1);
    const ended = await landed(bob.b, await post(bob, 'end', { id: ann.account.userid }));
    assert.match(text(ended), /You and Tester no longer collaborate/);
    assert.deepEqual(await collaborators(ann), []);
    assert.deepEqual(await rows(ctx, bob), []);
    assert.equal((await rows(ctx, ann)).length, 1, 'the owner keeps the task');
  });

  it('invite by user id; decline and withdraw end the invitation on both sides', async () => {
    const ann = await person();
    const bob = await person('Bob');
    const cat = await person('Cat');
    await landed(ann.b, await post(ann, 'invite', { who: bob.account.userid, reassignable: '1', sharable: '1' }));
    await landed(ann.b, await post(ann, 'invite', { who: cat.account.userid, reassignable: '1', sharable: '1' }));
    const declined = await landed(bob.b, await post(bob, 'end', { id: ann.account.userid }));
    assert.match(text(declined), /You declined the invitation of Tester/);
    assert.deepEqual(await invitations(bob), []);
    const withdrawn = await landed(ann.b, await post(ann, 'end', { id: cat.account.userid }));
    assert.match(text(withdrawn), /You withdrew the invitation to Cat/);
    assert.deepEqual(await invitations(cat), []);
    assert.deepEqual(await invitations(ann), []);
  });

  it("the service's refusals are shown beside the invite field, with what was typed", async () => {
    const ann = await person();
    const bob = await person();
    await collaborate(ctx, ann, bob);
    const cases: Array<[string, RegExp]> = [
      ['nobody@example.org', /Invalid collaborator: no account has this e-mail address or user id/],
      ['td0000000000', /Invalid collaborator: no account has this e-mail address or user id/],
      [ann.account.email, /Invalid collaborator: an account cannot collaborate with itself/],
      [bob.account.userid, /Unable to invite: already collaborators/],
      ['   ', /Invalid collaborator: type an e-mail address or a user id/],
    ];
    for (const [who, message] of cases) {
      const page = await landed(ann.b, await post(ann, 'invite', { who }));
      assert.equal(page.statusCode, 200);
      const beside = /<span class="field-error" id="f-who-error">([^<]*)<\/span><input id="f-who"[^>]*aria-invalid="true" autofocus/.exec(page.body);
      assert.ok(beside, `${who}: the refusal is beside the field`);
      assert.match(beside[1] ?? '', message);
      if (who.trim()) assert.match(page.body, new RegExp(`id="f-who"[^>]*value="${who.replace(/[.]/g, '\\.')}"`));
      assert.doesNotMatch(page.body, /role="alert"/, 'not repeated at the top');
    }
    const cat = await person();
    const sent = await landed(ann.b, await post(ann, 'invite', { who: cat.account.email }));
    assert.match(text(sent), /Invitation sent/);
    const again = await landed(ann.b, await post(ann, 'invite', { who: cat.account.userid }));
    assert.match(again.body, /<span class="field-error" id="f-who-error">Unable to invite: already invited<\/span>/);
    assert.deepEqual((await invitations(ann)).map((i) => i['state']).sort(), ['accepted', 'sent']);
  });

  it('posts without the CSRF token or from another site are refused (403); signed out goes to sign in', async () => {
    const ann = await person();
    const bob = await person();
    for (const action of ['invite', 'accept', 'allow', 'end']) {
      const res = await ann.b.post(`${PAGE}/${action}`, { who: bob.account.email, id: bob.account.userid });
      assert.equal(res.statusCode, 403, `${action} without a token`);
      const page = await ann.b.get(PAGE);
      const cross = await ann.b.crossSitePost(`${PAGE}/${action}`, { _csrf: formInputs(page.body, `${PAGE}/invite`)['_csrf'] ?? '', who: bob.account.email, id: bob.account.userid });
      assert.equal(cross.statusCode, 403, `${action} from another site`);
    }
    assert.deepEqual(await invitations(bob), []);
    const out = await new Browser(ctx.app).get(PAGE);
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers['location'], `/signin?next=${encodeURIComponent(PAGE)}`);
  });

  it("one account never sees or acts on another pair's invitation or collaboration", async () => {
    const ann = await person();
    const bob = await person();
    const eve = await person('Eve');
    const dan = await person();
    await collaborate(ctx, ann, bob, { sharable: 1, reassignable: 1 });
    await api(ctx, dan.token, '/3/account/collaborators_invite.php', { invite: bob.account.email });
    const before = [await invitations(ann), await invitations(bob), await invitations(dan)];
    const page = await eve.b.get(PAGE);
    for (const p of [ann, bob, dan]) assert.doesNotMatch(page.body, new RegExp(p.account.userid), 'Eve sees nobody else’s pair');
    const attempts: Array<[string, Record<string, string>]> = [
      ['accept', { id: bob.account.userid }],
      ['accept', { id: dan.account.userid }],
      ['allow', { id: ann.account.userid, reassignable: '1', sharable: '1' }],
      ['end', { id: ann.account.userid }],
      ['end', { id: bob.account.userid }],
      ['end', { id: dan.account.userid }],
    ];
    for (const [action, fields] of attempts) {
      const res = await landed(eve.b, await post(eve, action, fields));
      assert.match(text(res), /Not done: Invalid collaborator/, `${action} ${JSON.stringify(fields)}`);
    }
    // Bob cannot accept on Dan's behalf what Dan sent (only the invitee accepts).
    const self = await landed(dan.b, await post(dan, 'accept', { id: bob.account.userid }));
    assert.match(text(self), /Not done: Invalid collaborator: no invitation from this account is waiting/);
    assert.deepEqual([await invitations(ann), await invitations(bob), await invitations(dan)], before);
    assert.deepEqual(await invitations(eve), []);
  });

  it('the account page links to it', async () => {
    const ann = await person();
    assert.match((await ann.b.get('/account')).body, /<a href="\/account\/collaborators">/);
  });
});
