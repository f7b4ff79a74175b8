import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { accept, endCollaboration, invite, listCollaborations, setAllowed, type Allowed } from '../features/sharing/collaborators.service.js';
import type { Params } from '../http/params.js';
import { collaboratorsPage } from './views/collaborators.js';
import type { Web } from './web-kit.js';

const PAGE = '/account/collaborators';

/**
 * The collaborators page (docs/sharing.md): every action is one call of the collaborators
 * service, with the signed-in account as one side of the pair, so a form can only ever act on a
 * pair the person belongs to. The service's refusals are shown in its own words.
 */
export function collaboratorsRoutes(web: Web): void {
  const { deps } = web;

  // A ticked box is sent as 1; an unticked one is not sent at all.
  const allowedOf = (p: Params): Allowed => ({ reassign: p.get('reassignable') === '1', share: p.get('sharable') === '1' });

  /** Runs one action; a refusal of the service goes back to the page as its message. */
  async function act(request: FastifyRequest, reply: FastifyReply, action: () => Promise<string>, refused?: (err: ApiError) => Record<string, string>): Promise<FastifyReply> {
    try {
      return web.redirect(request, reply, PAGE, { notice: await action() });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return web.redirect(request, reply, PAGE, refused ? { error: err.desc, fields: refused(err) } : { error: `Not done: ${err.desc}.` });
    }
  }

  web.getSignedIn(PAGE, async function showCollaborators(request, reply, who) {
    const flash = web.flash(request, reply);
    const f = flash.fields;
    const inviteRefused = f?.['form'] === 'invite' && flash.error !== undefined;
    const v = {
      csrf: web.csrf(reply),
      collaborations: await listCollaborations(deps, who.account.pk),
      error: inviteRefused ? undefined : flash.error,
      notice: flash.notice,
      invite: inviteRefused ? { who: f['who'] ?? '', error: flash.error ?? '', reassign: f['reassignable'] === '1', share: f['sharable'] === '1' } : undefined,
    };
    return web.page(reply, 200, collaboratorsPage(web.site, web.nav(reply, who, '/account'), v));
  });

  web.postSignedIn(`${PAGE}/invite`, ['who', 'reassignable', 'sharable'], async function inviteCollaborator(request, reply, p, who) {
    const typed = (p.get('who') ?? '').trim();
    const allow = allowedOf(p);
    return act(
      request,
      reply,
      async () => {
        if (typed === '') throw new ApiError(615, { desc: 'Invalid collaborator: type an e-mail address or a user id' });
        const c = await invite(deps, who.account.pk, typed, allow);
        return c.state === 'accepted' ? `${c.otherAlias} had invited you: you are now collaborators.` : `Invitation sent to ${c.otherAlias}. They accept it on this page.`;
      },
      () => ({ form: 'invite', who: typed, reassignable: allow.reassign ? '1' : '0', sharable: allow.share ? '1' : '0' }),
    );
  });

  web.postSignedIn(`${PAGE}/accept`, ['id'], async function acceptInvitation(request, reply, p, who) {
    return act(request, reply, async () => `You and ${(await accept(deps, who.account.pk, p.get('id') ?? '')).otherAlias} are now collaborators.`);
  });

  web.postSignedIn(`${PAGE}/allow`, ['id', 'reassignable', 'sharable'], async function saveAllowed(request, reply, p, who) {
    return act(request, reply, async () => {
      const c = await setAllowed(deps, who.account.pk, p.get('id') ?? '', allowedOf(p));
      return `Saved what ${c.otherAlias} may do.`;
    });
  });

  // Decline, Withdraw and End are one service call; the notice says which it was.
  web.postSignedIn(`${PAGE}/end`, ['id'], async function endOne(request, reply, p, who) {
    const id = p.get('id') ?? '';
    return act(request, reply, async () => {
      const before = (await listCollaborations(deps, who.account.pk)).find((c) => c.otherUserid === id);
      await endCollaboration(deps, who.account.pk, id);
      const name = before?.otherAlias ?? id;
      if (before?.state === 'received') return `You declined the invitation of ${name}.`;
      if (before?.state === 'sent') return `You withdrew the invitation to ${name}.`;
      return `You and ${name} no longer collaborate. The tasks you shared with each other are no longer shared.`;
    });
  });
}
