import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, DEFAULT_ORIGIN, formInputs, submit } from '../../../test/browser.js';
import { api, createAccount, createOrganizer, settledStamps, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';
import { WEB_KINDS } from './organize-kinds.js';

/**
 * The pages of folders, contexts, goals and locations, through app.inject: every action, its
 * refusals (the API's own messages beside the field), the checks of every form, and that another
 * person's record is out of reach (404, never its data). What a page changes, the API then shows.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

type Rec = Record<string, unknown>;

async function listed(token: string, plural: string): Promise<Rec[]> {
  return (await api(ctx, token, `/3/${plural}/get.php`)).json<Rec[]>();
}

/** A signed-in browser and an app's token, of one new account. */
async function person(): Promise<{ b: Browser; token: string; account: Awaited<ReturnType<typeof createAccount>> }> {
  const { account, token } = await signIn(ctx);
  return { b: await signedInBrowser(ctx, account), token, account };
}

for (const kind of WEB_KINDS) {
  const { plural, noun } = kind.spec;
  const path = kind.path;

  describe(`${plural} pages`, () => {
    it('add: the API lists the new record, and the kind\'s stamp moved', async () => {
      const { b, token } = await person();
      const before = await settledStamps(ctx, token);
      const page = await landed(b, await submit(b, path, { name: `  First ${noun} ` }));
      assert.match(text(page), new RegExp(`Added the ${noun} “First ${noun}”`));
      assert.match(text(page), new RegExp(`Your ${plural} \\(1\\)`));
      const records = await listed(token, plural);
      assert.deepEqual(records.map((r) => r['name']), [`First ${noun}`]);
      const after = await settledStamps(ctx, token);
      assert.ok((after[kind.spec.stamp] as number) > (before[kind.spec.stamp] as number), `${kind.spec.stamp} moved`);
    });

    it('add refused: no name, a taken name, a name too long; the API\'s message beside the field, what was typed kept', async () => {
      const { b, token } = await person();
      const blank = await submit(b, path, { name: '   ' });
      assert.equal(blank.statusCode, 422);
      assert.match(text(blank), new RegExp(`Your ${noun} must have a name \\(error ${kind.spec.codes.noName}\\)`));
      assert.match(blank.body, /id="f-name" name="name" aria-describedby="f-name-error" aria-invalid="true" autofocus/);
      await landed(b, await submit(b, path, { name: 'Taken' }));
      const taken = await submit(b, path, { name: 'TAKEN' });
      assert.equal(taken.statusCode, 422);
      assert.match(text(taken), new RegExp(`A ${noun} with that name already exists \\(error ${kind.spec.codes.nameTaken}\\)`));
      assert.match(taken.body, /value="TAKEN"/);
      const long = await submit(b, path, { name: 'x'.repeat(kind.spec.maxNameChars + 1) });
      assert.equal(long.statusCode, 422);
      assert.match(text(long), new RegExp(`the ${noun} name is too long: at most ${kind.spec.maxNameChars} characters`));
      assert.equal((await listed(token, plural)).length, 1);
    });

    it('rename on the record\'s page; saving unchanged says so; an unknown id is 404', async () => {
      const { b, token } = await person();
      await landed(b, await submit(b, path, { name: 'Old name' }));
      const id = (await listed(token, plural))[0]?.['id'] as number;
      const shown = await b.get(`${path}/${id}`);
      assert.equal(shown.statusCode, 200);
      assert.match(shown.body, /value="Old name"/);
      const saved = await landed(b, await submit(b, `${path}/${id}`, { name: 'New name' }));
      assert.match(text(saved), /Saved\./);
      assert.equal((await listed(token, plural))[0]?.['name'], 'New name');
      const same = await landed(b, await submit(b, `${path}/${id}`, { name: 'New name' }));
      assert.match(text(same), /Nothing to save/);
      const blank = await submit(b, `${path}/${id}`, { name: '' });
      assert.equal(blank.statusCode, 422);
      assert.match(text(blank), new RegExp(`must have a name \\(error ${kind.spec.codes.noName}\\)`));
      for (const bad of ['999', '0', 'abc', '1.5', '-1']) assert.equal((await b.get(`${path}/${bad}`)).statusCode, 404, bad);
    });

    it('delete: the question says how many tasks point at it and what happens to them, then the API shows it', async () => {
      const { b, token, account } = await person();
      const id = await createOrganizer(ctx, account, kind.spec.kind, 'Doomed');
      const keep = await createOrganizer(ctx, account, kind.spec.kind, 'Kept');
      const added = await tasksCall(ctx, token, 'add', [{ title: 'one', [kind.spec.kind]: id }, { title: 'two', [kind.spec.kind]: id }, { title: 'three', [kind.spec.kind]: keep }]);
      assert.equal(added.statusCode, 200, added.body);
      await tasksCall(ctx, token, 'edit', [{ id: (added.json<Rec[]>()[1] as Rec)['id'], completed: 1700000000 }]);
      const list = await b.get(path);
      assert.match(text(list), /Doomed 2 tasks/);
      assert.match(text(list), /Kept 1 task/);
      const question = await b.get(`${path}/${id}/delete`);
      assert.equal(question.statusCode, 200);
      assert.match(text(question), new RegExp(`2 tasks \\(completed ones included\\) point at this ${noun}: they are kept, with no ${noun}`));
      const before = await settledStamps(ctx, token);
      const done = await landed(b, await submit(b, `${path}/${id}/delete`));
      assert.match(text(done), new RegExp(`Deleted the ${noun} “Doomed”. 2 tasks now have no ${noun}`));
      assert.deepEqual((await listed(token, plural)).map((r) => r['name']), ['Kept']);
      const tasks = (await api(ctx, token, '/3/tasks/get.php', { fields: kind.spec.kind })).json<Rec[]>().slice(1);
      assert.deepEqual(tasks.map((t) => t[kind.spec.kind]).sort(), [0, 0, keep]);
      const after = await settledStamps(ctx, token);
      assert.ok((after['lastedit_task'] as number) > (before['lastedit_task'] as number), 'lastedit_task moved');
      assert.equal((await b.get(`${path}/${id}`)).statusCode, 404);
    });

    it('every form post needs its CSRF token and must come from this site', async () => {
      const { b, token, account } = await person();
      const id = await createOrganizer(ctx, account, kind.spec.kind, 'Guarded');
      const page = await b.get(`${path}/${id}`);
      const csrf = formInputs(page.body, `${path}/${id}`)['_csrf'] as string;
      const posts: Array<[string, Record<string, string>]> = [
        [path, { name: 'Sneaky' }],
        [`${path}/${id}`, { name: 'Renamed' }],
        [`${path}/${id}/delete`, {}],
        ...(kind.archivable ? [[`${path}/${id}/archive`, { archived: '1' }] as [string, Record<string, string>]] : []),
        ...(kind.orderable ? [[`${path}/${id}/move`, { direction: 'up' }] as [string, Record<string, string>]] : []),
      ];
      for (const [url, form] of posts) {
        assert.equal((await b.post(url, form)).statusCode, 403, `${url} without a token`);
        const crossSite = await b.crossSitePost(url, { ...form, _csrf: csrf });
        assert.equal(crossSite.statusCode, 403, `${url} from another site`);
      }
      assert.deepEqual((await listed(token, plural)).map((r) => [r['name'], r['archived'] ?? 0]), [['Guarded', 0]]);
    });

    it("another person's record answers 404 to every page and post, and is left as it was", async () => {
      const owner = await person();
      await createOrganizer(ctx, owner.account, kind.spec.kind, 'Filler');
      // Ids are per account: the stranger has a record 1 of their own, but no record 2.
      const id = await createOrganizer(ctx, owner.account, kind.spec.kind, 'Secret plans');
      const stranger = await person();
      await createOrganizer(ctx, stranger.account, kind.spec.kind, 'Mine');
      for (const url of [`${path}/${id}`, `${path}/${id}/delete`]) {
        const res = await stranger.b.get(url);
        assert.equal(res.statusCode, 404, url);
        assert.doesNotMatch(res.body, /Secret plans/);
      }
      const csrf = formInputs((await stranger.b.get(path)).body, path)['_csrf'] as string;
      for (const [url, form] of [
        [`${path}/${id}`, { name: 'Stolen' }],
        [`${path}/${id}/delete`, {}],
        [`${path}/${id}/archive`, { archived: '1' }],
        [`${path}/${id}/move`, { direction: 'up' }],
      ] as const) {
        const res = await stranger.b.post(url, { ...form, _csrf: csrf });
        assert.equal(res.statusCode, 404, url);
        assert.doesNotMatch(res.body, /Secret plans/);
      }
      assert.doesNotMatch((await stranger.b.get(path)).body, /Secret plans/);
      assert.deepEqual((await listed(owner.token, plural)).map((r) => [r['name'], r['archived'] ?? 0]), [['Filler', 0], ['Secret plans', 0]]);
    });

    it('signed out, the pages send the browser to sign in', async () => {
      const res = await new Browser(ctx.app).get(path);
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers['location'], `/signin?next=${encodeURIComponent(path)}`);
    });
  });
}

describe('the fields of each kind', () => {
  it('folders: private on add and edit (an unticked box is 0), archive and restore with what happens said first', async () => {
    const { b, token, account } = await person();
    await landed(b, await submit(b, '/folders', { name: 'Work', private: '1' }));
    const [folder] = await listed(token, 'folders');
    assert.deepEqual([folder?.['private'], folder?.['archived'], folder?.['ord']], [1, 0, 1]);
    const id = folder?.['id'] as number;
    await landed(b, await submit(b, `/folders/${id}`, { name: 'Work' }));
    assert.equal((await listed(token, 'folders'))[0]?.['private'], 0, 'the unticked box cleared private');
    await tasksCall(ctx, token, 'add', [{ title: 'a', folder: id }]);
    await ctx.deps.store.transaction(async (tx) => tx.documents.insert(account.pk, 'note', { id: 77, title: 'n', text: '', folder: id, private: 0, added: 1, modified: 1 }));
    const page = await b.get(`/folders/${id}`);
    assert.match(text(page), /Its 1 task and 1 note stay in it, unchanged/);
    assert.match(text(page), /1 task points at this folder/);
    const archived = await landed(b, await submit(b, `/folders/${id}`, {}, `/folders/${id}/archive`));
    assert.match(text(archived), /The folder is archived/);
    assert.match(text(archived), /Restore the folder/);
    assert.equal((await listed(token, 'folders'))[0]?.['archived'], 1);
    const again = await b.post(`/folders/${id}/archive`, { ...formInputs(archived.body, `/folders/${id}/archive`), archived: '1' });
    assert.match(text(await landed(b, again)), /archived/, 'archiving an archived folder is no error');
    await landed(b, await submit(b, `/folders/${id}`, {}, `/folders/${id}/archive`));
    assert.equal((await listed(token, 'folders'))[0]?.['archived'], 0);
    const question = await b.get(`/folders/${id}/delete`);
    assert.match(text(question), /1 note filed in it is kept, in no folder/);
  });

  it('folders: moved up and down the list (ord), the order apps get; lastedit_folder moves', async () => {
    const { b, token } = await person();
    for (const name of ['A', 'B', 'C']) await landed(b, await submit(b, '/folders', { name }));
    const page = await b.get('/folders/3');
    assert.match(text(page), /3rd of 3 in the folder list/);
    assert.doesNotMatch(text(page), /Move down/);
    const before = await settledStamps(ctx, token);
    const moved = await landed(b, await submit(b, '/folders/3', { direction: 'up' }, '/folders/3/move'));
    assert.match(text(moved), /Moved up\. .*2nd of 3/);
    assert.deepEqual((await listed(token, 'folders')).map((f) => [f['name'], f['ord']]), [['A', 1], ['C', 2], ['B', 3]]);
    assert.ok(((await settledStamps(ctx, token))['lastedit_folder'] as number) > (before['lastedit_folder'] as number));
    await landed(b, await submit(b, '/folders/3', { direction: 'up' }, '/folders/3/move'));
    const top = await landed(b, await submit(b, '/folders/3', { direction: 'up' }, '/folders/3/move'));
    assert.match(text(top), /at the top already/);
    await landed(b, await submit(b, '/folders/1', { direction: 'down' }, '/folders/1/move'));
    assert.deepEqual((await listed(token, 'folders')).map((f) => f['name']), ['C', 'B', 'A']);
  });

  it('folders that share an ord (as an import may leave them) are numbered 1, 2, 3… by a move', async () => {
    const { b, token, account } = await person();
    for (const name of ['A', 'B', 'C']) await createOrganizer(ctx, account, 'folder', name, { ord: 7 });
    await landed(b, await submit(b, '/folders/1', { direction: 'down' }, '/folders/1/move'));
    assert.deepEqual((await listed(token, 'folders')).map((f) => [f['name'], f['ord']]), [['B', 1], ['A', 2], ['C', 3]]);
  });

  it('contexts: private', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/contexts', { name: '@phone', private: '1' }));
    assert.deepEqual(await listed(token, 'contexts'), [{ id: 1, name: '@phone', private: 1 }]);
  });

  it('goals: level, contributes (only to a higher level, said when reset), note, private; contributors are named before a delete', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/goals', { name: 'Be healthy', level: '0' }));
    await landed(b, await submit(b, '/goals', { name: 'Run a marathon', level: '1', contributes: '1', note: ' Spring race \n', private: '1' }));
    assert.deepEqual((await listed(token, 'goals'))[1], { id: 2, name: 'Run a marathon', level: 1, archived: 0, contributes: 1, note: ' Spring race \n' });
    assert.match((await api(ctx, token, '/3/goals/get.php', { f: 'xml' })).body, /<name>Run a marathon<\/name>.*<private>1<\/private>/);
    const list = await b.get('/goals');
    assert.match(text(list), /Run a marathon Private no task · Long-term, contributes to Be healthy/);
    // A lifetime goal cannot contribute to a long-term one: the API resets it, the page says so.
    const reset = await landed(b, await submit(b, '/goals/1', { name: 'Be healthy', level: '0', contributes: '2' }));
    assert.match(text(reset), /contributes to no goal: the goal chosen is not of a higher level/);
    const question = await b.get('/goals/1/delete');
    assert.match(text(question), /1 goal that contributes to it will contribute to none/);
    const bad = await submit(b, '/goals/2', { name: 'Run a marathon', level: '7' });
    assert.equal(bad.statusCode, 422);
    assert.match(text(bad), /level must be 0, 1 or 2 \(error 411\)/);
    await landed(b, await submit(b, '/goals/2', {}, '/goals/2/archive'));
    assert.equal((await listed(token, 'goals'))[1]?.['archived'], 1);
  });

  it('locations: description, latitude and longitude (out of range refused beside the field; emptied is 0)', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/locations', { name: 'Office', description: 'Third floor', lat: '51.5074', lon: '-0.1278' }));
    assert.deepEqual(await listed(token, 'locations'), [{ id: 1, name: 'Office', description: 'Third floor', lat: 51.5074, lon: -0.1278 }]);
    const bad = await submit(b, '/locations/1', { name: 'Office', description: 'Third floor', lat: '91', lon: '0' });
    assert.equal(bad.statusCode, 422);
    assert.match(text(bad), /lat must be a number from -90 to 90 \(error 511\)/);
    assert.match(bad.body, /id="f-lat" name="lat" aria-describedby="f-lat-hint f-lat-error" aria-invalid="true" autofocus/);
    assert.match(bad.body, /value="91"/);
    await landed(b, await submit(b, '/locations/1', { name: 'Office', description: '', lat: '', lon: '' }));
    assert.deepEqual(await listed(token, 'locations'), [{ id: 1, name: 'Office', description: '', lat: 0, lon: 0 }]);
  });

  it('the pages are linked from the home page and the navigation', async () => {
    const { b } = await person();
    const home = await b.get('/');
    assert.match(home.body, /href="\/folders"/);
    assert.match(home.body, /href="\/notes"/);
    const contexts = await b.get('/contexts');
    assert.match(contexts.body, /<nav aria-label="Organize" class="tabs">.*href="\/contexts" aria-current="page"/);
    assert.equal(DEFAULT_ORIGIN, 'http://127.0.0.1:3000');
  });
});
