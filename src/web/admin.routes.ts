import { unixSeconds } from '../lib/clock.js';
import { makeInvite } from '../features/users/links.service.js';
import { invitesPage } from './views/admin.js';
import type { Web } from './web-kit.js';

/** Invitations, for admins: a link that creates one account (REGISTRATION=invite). */
export function adminRoutes(web: Web): void {
  const { deps } = web;

  web.getSignedIn('/admin/invites', async function showInvites(request, reply, who) {
    if (!who.account.isAdmin) return web.errorPage(reply, 403, 'Admins only', 'Only an admin of this server can invite people.');
    const flash = web.flash(request, reply);
    const invites = await deps.store.read.accountLinks.list(who.account.pk, 'invite', unixSeconds(deps.clock));
    const v = { csrf: web.csrf(reply), registration: deps.config.registration, invites, secret: flash.secret, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, invitesPage(web.site, web.nav(reply, who, '/admin/invites'), v));
  });

  web.postSignedIn('/admin/invites', ['note'], async function invite(request, reply, p, who) {
    if (!who.account.isAdmin) return web.errorPage(reply, 403, 'Admins only', 'Only an admin of this server can invite people.');
    const link = await makeInvite(deps, who.account.pk, p.get('note') ?? '');
    return web.redirect(request, reply, '/admin/invites', { secret: { label: 'The invitation link:', value: link.url } });
  });

  web.postSignedIn('/admin/invites/withdraw', ['id'], async function withdraw(request, reply, p, who) {
    if (!who.account.isAdmin) return web.errorPage(reply, 403, 'Admins only', 'Only an admin of this server can invite people.');
    const removed = await deps.store.transaction((tx) => tx.accountLinks.delete(who.account.pk, 'invite', p.text('id') ?? ''));
    return web.redirect(request, reply, '/admin/invites', removed > 0 ? { notice: 'The invitation is withdrawn: its link no longer works.' } : { error: 'That invitation was used or withdrawn already.' });
  });
}
