import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function h(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * One stylesheet for every page, inline and allowed by its hash, so that the policy stays
 * `default-src 'none'` with no style or script from anywhere. Buttons and inputs take the page's
 * font; long words (addresses, ids) wrap instead of widening the page; focus is always visible.
 */
const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330;overflow-wrap:anywhere}
a{color:#1f4fb5}
a:hover{color:#163a86}
:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
header.site{background:#1d2330;color:#fff}
header.site .bar{max-width:52rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1.2rem}
header.site .brand{color:#fff;text-decoration:none;font-weight:700;font-size:1.1rem;display:flex;align-items:center;gap:.45rem}
header.site .brand img{width:1.4rem;height:1.4rem}
header.site .where{color:#c9cfdb;font-size:.85rem}
header.site nav{margin-left:auto}
header.site nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem .9rem;align-items:center}
header.site nav a{color:#fff;text-decoration:none;font-size:.95rem}
header.site nav a[aria-current=page]{text-decoration:underline;text-underline-offset:.3rem}
header.site nav button{background:none;border:1px solid #8b93a7;color:#fff;padding:.15rem .6rem;margin:0;font-size:.9rem}
main{display:block;max-width:52rem;margin:1.5rem auto;padding:0 1rem}
main.narrow{max-width:28rem}
.card{background:#fff;padding:1.5rem;border-radius:10px;box-shadow:0 1px 4px #0002;margin:0 0 1.2rem}
h1{font-size:1.4rem;margin:0 0 1rem;line-height:1.3}
h2{font-size:1.15rem;margin:0 0 .8rem}
label{display:block;margin:.9rem 0 .2rem;font-weight:600}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
.hint{display:block;color:#555c6c;font-size:.88rem;font-weight:400;margin:.1rem 0 .2rem}
input,select,textarea,button{font:inherit}
input[type=email],input[type=password],input[type=text],input[type=url],input[type=number],input[type=search],input[type=date],input[type=datetime-local],input[type=time],select,textarea{width:100%;padding:.5rem;border:1px solid #8b93a7;border-radius:6px;background:#fff;color:inherit}
input[type=checkbox],input[type=radio]{width:1.1rem;height:1.1rem}
textarea{min-height:5.5rem}
fieldset{border:1px solid #d5d9e1;border-radius:8px;margin:1rem 0 0;padding:.2rem 1rem 1rem;min-width:0}
legend{font-weight:600;padding:0 .3rem}
button,.button{display:inline-block;padding:.5rem 1.1rem;border-radius:6px;border:1px solid #1f4fb5;background:#2456c4;color:#fff;cursor:pointer;margin:1.1rem .5rem 0 0;text-decoration:none;line-height:1.5}
button.secondary,.button.secondary{background:#fff;color:#1f4fb5}
button.danger{background:#b3261e;border-color:#8c1d17}
button.link{background:none;border:none;color:#1f4fb5;padding:0;margin:0;text-decoration:underline}
.error{background:#fdecea;border:1px solid #e4a29b;padding:.7rem .9rem;border-radius:6px;margin:0 0 1rem}
.notice{background:#e8f3ea;border:1px solid #9cc9a5;padding:.7rem .9rem;border-radius:6px;margin:0 0 1rem}
.error>p,.notice>p{margin:.3rem 0}
input[type=file]{display:block;max-width:100%}
::file-selector-button{font:inherit;padding:.3rem .8rem;margin-right:.6rem}
h1[tabindex]:focus{outline:none}
.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#fff8d6;border:1px solid #d9c15a;padding:.5rem .7rem;border-radius:6px;display:block;margin:.4rem 0}
textarea.address{min-height:0;field-sizing:content;resize:none;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;background:#fff8d6;border-color:#d9c15a}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.muted{color:#555c6c;font-size:.92rem}
ul.scopes{padding-left:1.2rem}
ul.downloads{padding-left:1.2rem}
ul.downloads>li{margin:.35rem 0}
ul.items{list-style:none;margin:0;padding:0}
ul.items>li{border-top:1px solid #e1e4ea;padding:.9rem 0}
ul.items>li:first-child{border-top:none;padding-top:0}
.row{display:flex;gap:.8rem;align-items:flex-start}
.row img{width:2.5rem;height:2.5rem;border-radius:8px;flex:none;background:#eef0f4}
.row .grow{flex:1;min-width:0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.4rem 0}
dl.facts dt{color:#555c6c}
dl.facts dd{margin:0}
dl.cells dd{white-space:pre-wrap}
fieldset.slot label{margin-top:.5rem}
@media (min-width:40rem){fieldset.slot{display:grid;grid-template-columns:2fr 1.5fr 2fr;gap:0 .8rem}fieldset.slot .wide{grid-column:1/-1}}
details{margin-top:.8rem}
summary{cursor:pointer;color:#1f4fb5}
nav.tabs ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.3rem}
nav.tabs a{display:inline-block;padding:.3rem .8rem;border:1px solid #c5cad6;border-radius:999px;background:#fff;text-decoration:none}
nav.tabs a[aria-current]{background:#1d2330;border-color:#1d2330;color:#fff}
.badge{display:inline-block;font-size:.78rem;padding:0 .45rem;margin-left:.3rem;border-radius:999px;background:#e6e9f0;color:#1d2330;vertical-align:middle}
.field-error{display:block;color:#a11d17;font-weight:600;font-size:.9rem;margin:.1rem 0 .2rem}
[aria-invalid=true]{border-color:#a11d17;border-width:2px}
.crumbs{margin:0 0 .3rem;font-size:.92rem}
.notetext{white-space:pre-wrap}
ul.compact{list-style:none;margin:0;padding:0}
ul.compact>li{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.1rem 1rem;padding:.55rem 0;border-top:1px solid #e1e4ea}
ul.compact>li:first-child{border-top:none;padding-top:0}
ul.compact>li:last-child{padding-bottom:0}
.tablewrap{overflow-x:auto;background:#fff;border-radius:10px;box-shadow:0 1px 4px #0002;margin:0 0 1.2rem}
.tablewrap table{border-collapse:collapse;width:100%}
.tablewrap caption{text-align:left;padding:.9rem 1rem .5rem;font-weight:600}
.tablewrap th,.tablewrap td{text-align:left;vertical-align:top;padding:.45rem 1rem;border-top:1px solid #e1e4ea;overflow-wrap:normal;min-width:7rem;white-space:pre-wrap}
.tablewrap th{font-size:.9rem;background:#f8f9fb}
.tablewrap td.act,.tablewrap th.act{min-width:0;white-space:nowrap}
ul.outline{margin:.25rem 0 0;padding-left:1.4rem}
.card>ul.outline{margin:0;padding-left:1.2rem}
ul.outline>li{margin:.3rem 0}
main.wide{max-width:72rem}
.bar-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.bar-row>.grow{flex:1 1 16rem;min-width:0}
.bar-row label{margin-top:0}
.bar-row button{margin-top:0}
.qa input{font-size:1.05rem}
.preview{min-height:1.6rem;margin:.4rem 0 0;color:#37405a;font-size:.92rem}
.preview .chip{margin-right:.3rem}
nav.views ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.3rem}
nav.views a{display:inline-block;padding:.25rem .7rem;border-radius:999px;background:#fff;border:1px solid #c9cfdb;text-decoration:none;color:#1d2330;font-size:.92rem}
nav.views a[aria-current=page]{background:#1d2330;color:#fff;border-color:#1d2330}
.count{font-variant-numeric:tabular-nums;color:inherit;opacity:.8;margin-left:.25rem}
ul.tasks{list-style:none;margin:0;padding:0}
ul.tasks li.task{display:flex;gap:.6rem;align-items:flex-start;border-top:1px solid #e1e4ea;padding:.55rem 0}
ul.tasks ul.tasks{margin-left:2.2rem}
ul.tasks li.task:first-child{border-top:none}
li.task .body{flex:1;min-width:0}
li.task .title{font-weight:600;text-decoration:none;color:#1d2330}
li.task .title:hover{text-decoration:underline}
li.task.done .title{text-decoration:line-through;color:#555c6c}
li.task .facts{display:flex;flex-wrap:wrap;gap:.15rem .7rem;font-size:.86rem;color:#555c6c;margin-top:.1rem}
li.task .acts{display:flex;gap:.3rem;flex:none}
li.task button,.icon{margin:0;padding:.2rem .55rem;font-size:.9rem;line-height:1.4}
li.task input[type=checkbox]{margin-top:.35rem;flex:none}
li.task:focus-within{background:#f7f9fd}
button.star{background:#fff;color:#8a6d00;border-color:#c9a400}
button.star[aria-pressed=true]{background:#ffe27a;color:#4d3b00}
button.ok{background:#fff;color:#1c6b34;border-color:#1c6b34}
.chip{display:inline-block;background:#eef0f4;border-radius:4px;padding:0 .35rem;color:#37405a}
.overdue{color:#a3211a;font-weight:600}
.prio3{color:#a3211a;font-weight:600}
.prio2{color:#9a5b00;font-weight:600}
details.kids{margin:.3rem 0 0}
details.kids>summary{font-size:.86rem}
.bulk{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;background:#eef2fb;border:1px solid #c9d4ee;border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem}
.bulk label{margin:0;font-size:.86rem}
.bulk select{width:auto}
.bulk button{margin:0}
h2.group{font-size:1rem;margin:1.2rem 0 .3rem;padding-bottom:.2rem;border-bottom:2px solid #d5d9e1}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 1rem}
.field-error{display:block;color:#a3211a;font-weight:600;font-size:.88rem;margin:.1rem 0}
[aria-invalid=true]{border-color:#a3211a!important}
kbd{font-family:ui-monospace,Menlo,Consolas,monospace;background:#fff;border:1px solid #c9cfdb;border-bottom-width:2px;border-radius:4px;padding:0 .35rem}
dialog{border:none;border-radius:10px;box-shadow:0 4px 24px #0005;max-width:32rem}
.fresh{background:#e8f3ea;border:1px solid #9cc9a5;padding:.4rem .7rem;border-radius:6px;margin:0 0 .8rem}
@media (max-width:40rem){.grid2{grid-template-columns:1fr}li.task .acts{flex-direction:column}li.task .acts button.danger{display:none}ul.tasks ul.tasks{margin-left:.4rem}}
.pair-head{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem 1rem}
.pair-acts{display:flex;flex-wrap:wrap;gap:.5rem}
.pair-acts button{margin:0}
footer.site{max-width:52rem;margin:2rem auto;padding:0 1rem;color:#555c6c;font-size:.85rem}
@media (max-width:30rem){dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}.card{padding:1.1rem}header.site nav{margin-left:0}}
`.trim();

/** Inline style allowed by hash, so the policy can stay `default-src 'none'`. */
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/**
 * The policy of every page: nothing from anywhere but the stylesheet above (by hash) and images
 * from this server (the favicon, app icons). No script at all. Exported for docs and tests.
 */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'`;

/**
 * The policy of the to-do pages, which add progressive enhancement: scripts only as files of this
 * server (no inline script, no eval), and requests back to this server only (the live preview and
 * the polling of the account's stamps). docs/decisions/0013.
 */
export const APP_CONTENT_SECURITY_POLICY = `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'sha256-${CSS_HASH}'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'`;

/**
 * Headers of every HTML page. No caching (pages carry CSRF tokens and account names); no referrer
 * to any other site (the authorize URL holds the app's state, reset and invitation pages a
 * secret). `same-origin` rather than `no-referrer`: under `no-referrer` browsers send
 * `Origin: null` with a form post even to the page's own origin (Fetch, "serializing a request
 * origin"), which the cross-site check must refuse, so no form would work. No framing
 * (click-jacking of the consent buttons). There is deliberately no `form-action` directive:
 * Chromium applies it to the redirect that follows the consent POST, which goes to the app's own
 * address, and would block it.
 */
export function pageHeaders(reply: FastifyReply, withScript = false): FastifyReply {
  return reply.headers(pageHeaderValues(withScript));
}

/** pageHeaders' values, for a page written without Fastify (src/http/client-errors.ts). */
export function pageHeaderValues(withScript = false): Readonly<Record<string, string>> {
  return {
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'content-security-policy': withScript ? APP_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY,
    'content-type': 'text/html; charset=utf-8',
  };
}

/** What every page shows of the server: the product name and the address people reach it at. */
export interface Site {
  /** PUBLIC_URL's path prefix ('' at the root): every link and form starts with it. */
  readonly base: string;
  /** PUBLIC_URL as shown: host and path, without the scheme. */
  readonly address: string;
}

export function siteOf(publicUrl: string): Site {
  const url = new URL(publicUrl);
  return { base: url.pathname.replace(/\/+$/, ''), address: `${url.host}${url.pathname.replace(/\/+$/, '')}` };
}

/** The navigation of a signed-in person; absent for visitors and on the authorize pages. */
export interface Nav {
  readonly email: string;
  readonly isAdmin: boolean;
  readonly csrf: string;
  /** The path of the page shown, marked as current. */
  readonly current: string;
}

export interface PageOptions {
  readonly nav?: Nav | undefined;
  /** Forms of one column (sign-in, sign-up): a narrow page. */
  readonly narrow?: boolean;
  /** A wide page (the task list). */
  readonly wide?: boolean;
  /** Module scripts of this server (paths under the site), for the to-do pages' enhancement. */
  readonly scripts?: readonly string[];
}

/**
 * The sections of the signed-in app, first in the navigation. Other to-do pages add theirs here.
 */
export const APP_LINKS: ReadonlyArray<readonly [path: string, text: string]> = [['/', 'Tasks'], ['/folders', 'Organize'], ['/notes', 'Notes'], ['/lists', 'Lists'], ['/outlines', 'Outlines']];

function navigation(site: Site, nav: Nav): string {
  const link = (path: string, text: string): string =>
    `<li><a href="${h(site.base + path)}"${nav.current === path ? ' aria-current="page"' : ''}>${h(text)}</a></li>`;
  return `<nav aria-label="Account"><ul>${APP_LINKS.map(([path, text]) => link(path, text)).join('')}${link('/account/apps', 'Connected apps')}${link('/developer', 'Developer')}${
    nav.isAdmin ? link('/admin/invites', 'Invitations') : ''
  }${link('/account', 'Account')}<li><form method="post" action="${h(site.base)}/signout"><input type="hidden" name="_csrf" value="${h(nav.csrf)}"><button type="submit">Sign out</button></form></li></ul></nav>`;
}

/** A whole page: banner with the product name and the server's address, main content, footer. */
export function layout(site: Site, title: string, body: string, options: PageOptions = {}): string {
  const header = `<header class="site"><div class="bar"><a class="brand" href="${h(site.base)}/"><img src="${h(site.base)}/favicon.svg" alt="">Tickler</a><span class="where">${h(site.address)}</span>${
    options.nav ? navigation(site, options.nav) : ''
  }</div></header>`;
  const footer = `<footer class="site"><p>Tickler at ${h(site.address)}: a self-hosted to-do server.</p></footer>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${h(title)} · Tickler</title><link rel="icon" href="${h(site.base)}/favicon.svg" type="image/svg+xml"><style>${CSS}</style>${(options.scripts ?? []).map((src) => `<script type="module" src="${h(site.base + src)}"></script>`).join('')}</head><body><a class="skip" href="#main">Skip to content</a>${header}<main id="main"${
    options.narrow ? ' class="narrow"' : options.wide ? ' class="wide"' : ''
  }>${body}</main>${footer}</body></html>`;
}

export function hiddenFields(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  return fields
    .filter((f): f is readonly [string, string] => f[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${h(k)}" value="${h(v)}">`)
    .join('');
}

/**
 * A message at the top of a form. An error takes the focus when the page loads (autofocus: no
 * script is allowed), and is announced; a notice is announced politely.
 */
export function messages(m: { error?: string | undefined; notice?: string | undefined }): string {
  return (
    (m.error ? `<div class="error" role="alert" tabindex="-1" autofocus id="problem"><p>${h(m.error)}</p></div>` : '') +
    (m.notice ? `<div class="notice" role="status"><p>${h(m.notice)}</p></div>` : '')
  );
}

/** The date of a Unix time, as people read it (UTC: the server knows no one's timezone for sure). */
export function day(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The date and minute of a Unix time, in UTC and saying so: when something was last used. */
export function dayAndTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
