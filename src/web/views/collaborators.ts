import type { Collaboration } from '../../storage/store.js';
import { checkbox, form } from '../forms.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';

/**
 * The collaborators page: accepted collaborators with what each side allows, invitations received
 * and sent, and the invite form. Every form posts one action of the collaborators service.
 */
export interface CollaboratorsView {
  readonly csrf: string;
  readonly collaborations: readonly Collaboration[];
  readonly error?: string | undefined;
  readonly notice?: string | undefined;
  /** The invite form as it was sent, when the service refused it: the refusal goes beside the field. */
  readonly invite?: { readonly who: string; readonly error: string; readonly reassign: boolean; readonly share: boolean } | undefined;
}

function person(c: Collaboration): string {
  return `<span><strong>${h(c.otherAlias)}</strong> <span class="muted">user id <code>${h(c.otherUserid)}</code></span></span>`;
}

/** What the other person lets you do, as a sentence. */
function lets(c: Collaboration): string {
  const [r, s] = [c.otherAllowsReassign, c.otherAllowsShare];
  const what = r && s ? 'reassign tasks to them and share tasks with them' : r ? 'reassign tasks to them, not share tasks with them' : s ? 'share tasks with them, not reassign tasks to them' : 'neither reassign nor share tasks with them';
  return `${c.otherAlias} lets you ${what}.`;
}

function collaborator(site: Site, csrf: string, c: Collaboration): string {
  const allow = form(
    `${site.base}/account/collaborators/allow`,
    csrf,
    `<fieldset><legend>What ${h(c.otherAlias)} may do</legend>
${checkbox({ name: 'reassignable', label: 'Reassign tasks to me', checked: c.allowReassign })}
${checkbox({ name: 'sharable', label: 'Share tasks with me', checked: c.allowShare })}
<button type="submit" class="secondary">Save</button></fieldset>`,
    { hidden: [['id', c.otherUserid]], label: `What ${c.otherAlias} may do` },
  );
  return `<li><div class="pair-head">${person(c)}<span class="pair-acts">${act(site, csrf, c, 'end', 'End the collaboration', 'danger', 'End the collaboration with')}</span></div>
<p class="muted">${h(lets(c))}</p>${allow}</li>`;
}

/** A form of one button about one person: the form is named for them, the button says what it does. */
function act(site: Site, csrf: string, c: Collaboration, path: string, text: string, cls: string, label: string): string {
  return form(`${site.base}/account/collaborators/${path}`, csrf, `<button type="submit"${cls ? ` class="${cls}"` : ''}>${h(text)}</button>`, {
    hidden: [['id', c.otherUserid]],
    label: `${label} ${c.otherAlias}`,
  });
}

function received(site: Site, csrf: string, c: Collaboration): string {
  return `<li>${person(c)}<span class="pair-acts">${act(site, csrf, c, 'accept', 'Accept', '', 'Accept the invitation of')}${act(site, csrf, c, 'end', 'Decline', 'secondary', 'Decline the invitation of')}</span></li>`;
}

function sent(site: Site, csrf: string, c: Collaboration): string {
  return `<li>${person(c)}<span class="pair-acts">${act(site, csrf, c, 'end', 'Withdraw', 'secondary', 'Withdraw the invitation to')}</span></li>`;
}

/** The invite field with its refusal beside it, tied to it for screen readers (as the editor's fields). */
function inviteForm(site: Site, v: CollaboratorsView): string {
  const error = v.invite?.error;
  const described = `f-who-hint${error ? ' f-who-error' : ''}`;
  return form(
    `${site.base}/account/collaborators/invite`,
    v.csrf,
    `<label for="f-who">E-mail address or user id</label><span class="hint" id="f-who-hint">Of someone with an account on this server. They accept or decline on this page; if they already invited you, this accepts.</span>${
      error ? `<span class="field-error" id="f-who-error">${h(error)}</span>` : ''
    }<input id="f-who" name="who" type="text" autocomplete="off" spellcheck="false" required value="${h(v.invite?.who ?? '')}" aria-describedby="${described}"${
      error ? ' aria-invalid="true" autofocus' : ''
    }>
${checkbox({ name: 'reassignable', label: 'They may reassign tasks to me', checked: v.invite?.reassign ?? true })}
${checkbox({ name: 'sharable', label: 'They may share tasks with me', checked: v.invite?.share ?? true })}
<button type="submit">Send the invitation</button>`,
    { label: 'Invite a collaborator' },
  );
}

export function collaboratorsPage(site: Site, nav: Nav, v: CollaboratorsView): string {
  const of = (state: Collaboration['state']): Collaboration[] => v.collaborations.filter((c) => c.state === state);
  const list = (items: string[], none: string, cls: string): string => (items.length ? `<ul class="${cls}">${items.join('')}</ul>` : `<p class="muted">${none}</p>`);
  const accepted = of('accepted').map((c) => collaborator(site, v.csrf, c));
  const waiting = of('received').map((c) => received(site, v.csrf, c));
  const mine = of('sent').map((c) => sent(site, v.csrf, c));
  return layout(
    site,
    'Collaborators',
    `<p class="crumbs"><a href="${h(site.base)}/account">Account</a></p><h1>Collaborators</h1>${messages({ error: v.error, notice: v.notice })}
<p class="muted">People with an account on this server with whom you share tasks (one task on both lists, which either of you may edit) or who reassign tasks to you (the task moves to your list). Each of you chooses what the other may do.</p>
<section class="card" aria-labelledby="s-collaborators"><h2 id="s-collaborators">Your collaborators</h2>
${list(accepted, 'No collaborators yet. Invite someone below.', 'items')}
<p class="muted">Ending a collaboration also ends the tasks you share with each other: whoever owns a joint task keeps it, and the other person’s copy leaves their list (their apps see it deleted).</p></section>
<section class="card" aria-labelledby="s-received"><h2 id="s-received">Invitations to you</h2>${list(waiting, 'None waiting.', 'compact')}</section>
<section class="card" aria-labelledby="s-sent"><h2 id="s-sent">Invitations you sent</h2>${list(mine, 'None waiting for an answer.', 'compact')}</section>
<section class="card" aria-labelledby="s-invite"><h2 id="s-invite">Invite someone</h2>${inviteForm(site, v)}</section>`,
    { nav },
  );
}
