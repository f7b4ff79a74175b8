import { createFeed, listFeeds, revokeFeed } from '../features/feeds/feeds.service.js';
import { InvalidInput } from '../features/users/users.service.js';
import { feedsPage, feedWhat } from './views/feeds.js';
import type { Web } from './web-kit.js';

const PAGE = '/account/feeds';

/**
 * The Calendar feeds page (docs/feeds.md): a person's feeds, made and revoked through the feeds
 * service with the signed-in account as their owner, so a form can only ever act on that
 * account's feeds and folders. The new address travels to the page in the sealed flash, once.
 */
export function feedsRoutes(web: Web): void {
  const { deps } = web;

  web.getSignedIn(PAGE, async function showFeeds(request, reply, who) {
    const flash = web.flash(request, reply);
    const [feeds, folders] = await Promise.all([listFeeds(deps, who.account.pk), deps.store.read.organizers.list(who.account.pk, 'folder')]);
    const v = { csrf: web.csrf(reply), feeds, folders, secret: flash.secret, fields: flash.fields, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, feedsPage(web.site, web.nav(reply, who, '/account'), v));
  });

  web.postSignedIn(PAGE, ['tasks'], async function makeFeed(request, reply, p, who) {
    const tasks = p.get('tasks') ?? '';
    // The form sends "all" or a folder's id; anything else is not guessed at.
    const folder = tasks === 'all' ? null : /^[1-9][0-9]{0,9}$/.test(tasks) ? Number(tasks) : undefined;
    if (folder === undefined) return web.redirect(request, reply, PAGE, { error: 'Choose the tasks: all of them, or one folder.' });
    try {
      const { feed, addresses } = await createFeed(deps, who.account.pk, { folder });
      const what = feedWhat(feed, feed.folder === null ? [] : await deps.store.read.organizers.list(who.account.pk, 'folder'));
      return web.redirect(request, reply, PAGE, { secret: { label: `The address of the feed of ${what}:`, value: addresses.https } });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, PAGE, { error: `Not made: ${err.message}.`, fields: { tasks } });
      throw err;
    }
  });

  web.postSignedIn(`${PAGE}/revoke`, ['id'], async function revokeCalendarFeed(request, reply, p, who) {
    const id = Number(p.text('id'));
    // Only the account's own: another's id is answered as one that is gone.
    const named = Number.isSafeInteger(id) ? (await listFeeds(deps, who.account.pk)).find((f) => f.id === id) : undefined;
    const ok = named !== undefined && (await revokeFeed(deps, who.account.pk, id));
    if (!ok) return web.redirect(request, reply, PAGE, { error: 'That feed was revoked already.' });
    const what = feedWhat(named, named.folder === null ? [] : await deps.store.read.organizers.list(who.account.pk, 'folder'));
    return web.redirect(request, reply, PAGE, { notice: `Revoked: the feed of ${what} no longer answers at its address.` });
  });
}
