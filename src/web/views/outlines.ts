import type { Outline, OutlineNode } from '../../storage/store.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { showMore } from '../paging.js';
import { NO_MORE } from './lists.js';

/**
 * The outlines pages: the account's outlines, and one outline as its tree; its form is
 * views/outline-form.ts.
 */

/** One node and those under it, in their places; a checked node is marked done. */
function nodeItem(n: OutlineNode): string {
  const children = [...n.children].sort((a, b) => a.position - b.position);
  return `<li${n.checked === 1 ? ' class="checked"' : ''}>${n.checked === 1 ? '<span class="muted">✓ Done:</span> ' : ''}${h(n.content)}${
    children.length > 0 ? `<ul class="outline">${children.map(nodeItem).join('')}</ul>` : ''
  }</li>`;
}

/** An outline's items as a tree (a card), or a card saying it has none. */
export function outlineTree(o: Outline): string {
  const top = [...o.nodes.children].sort((a, b) => a.position - b.position);
  return top.length === 0 ? '<div class="card"><p>This outline has no items yet.</p></div>' : `<section class="card" aria-label="Items of ${h(o.title)}"><ul class="outline">${top.map(nodeItem).join('')}</ul></section>`;
}

export function outlinesPage(
  site: Site,
  nav: Nav,
  v: { outlines: readonly Outline[]; total: number; more: string | undefined; day: (seconds: number) => string; notice?: string | undefined },
): string {
  const hidden = v.total - v.outlines.length;
  const items = v.outlines
    .map(
      (o) =>
        `<li><span><a href="${h(`${site.base}/outlines/${o.id}`)}">${h(o.title)}</a>${o.hidden === 1 ? ' <span class="badge">Hidden</span>' : ''}${
          o.keywords === '' ? '' : ` <span class="muted">${h(o.keywords)}</span>`
        }</span><span class="muted">${h(`${o.nodes.count} item${o.nodes.count === 1 ? '' : 's'} · changed ${v.day(o.modified)}`)}</span></li>`,
    )
    .join('');
  const body =
    v.total === 0
      ? '<div class="card"><p>You have no outlines yet. Make one here, or with an app that keeps outlines.</p></div>'
      : `<p class="muted" id="outline-count">${h(`${v.total} outline${v.total === 1 ? '' : 's'}`)}${hidden > 0 ? h(`; ${v.outlines.length} shown, ${hidden} more below`) : ''}</p>
<section class="card" aria-label="Your outlines"><ul class="compact">${items}</ul></section>
${hidden > 0 ? showMore(site.base, v.more, hidden, NO_MORE) : ''}`;
  return layout(site, 'Outlines', `<h1>Outlines</h1>${messages({ notice: v.notice })}<p><a class="button" href="${h(site.base)}/outlines/new">Make an outline</a></p>${body}`, { nav });
}

export function outlinePage(site: Site, nav: Nav, v: { outline: Outline; day: (seconds: number) => string; notice?: string | undefined }): string {
  const o = v.outline;
  const path = `${site.base}/outlines/${o.id}`;
  const about = `${o.note === '' ? '' : `<div class="notetext">${h(o.note)}</div>`}<p class="muted">${h(
    [o.keywords, o.hidden === 1 ? 'hidden' : '', `${o.nodes.count} item${o.nodes.count === 1 ? '' : 's'}`, `changed ${v.day(o.modified)}`].filter((x) => x !== '').join(' · '),
  )}</p>`;
  const actions = `<p><a class="button" href="${h(path)}/edit">Change the outline</a> <a class="button secondary" href="${h(path)}/delete">Delete the outline…</a></p>`;
  return layout(site, o.title, `<p class="crumbs"><a href="${h(site.base)}/outlines">Outlines</a></p><h1>${h(o.title)}</h1>${messages({ notice: v.notice })}${about}${actions}${outlineTree(o)}`, { nav });
}
