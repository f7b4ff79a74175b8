import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function h(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 1px 4px #0002}
h1{font-size:1.35rem;margin:0 0 1rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;font-size:1rem;border:1px solid #b8bcc6;border-radius:6px}
button{font-size:1rem;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #2456c4;background:#2f6ae0;color:#fff;cursor:pointer;margin:1.2rem .5rem 0 0}
button.secondary{background:#fff;color:#2456c4}
button.link{background:none;border:none;color:#2456c4;padding:0;margin:0;text-decoration:underline;font-size:.9rem}
.error{background:#fdecea;border:1px solid #f5c2bd;padding:.6rem .8rem;border-radius:6px}
.muted{color:#5b6273;font-size:.9rem}
ul.scopes{padding-left:1.2rem}
`.trim();

/** Inline style allowed by hash, so the policy can stay `default-src 'none'`. */
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/**
 * Headers of every HTML page. No caching (pages carry CSRF tokens and account names), no referrer
 * (the authorize URL holds the app's state), no framing (click-jacking of the consent buttons).
 * There is deliberately no `form-action` directive: Chromium applies it to the redirect that
 * follows the consent POST, which goes to the app's own address, and would block it.
 */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .type('text/html; charset=utf-8');
}

export function layout(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${h(title)} · Tickler</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;
}

export function hiddenFields(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  return fields
    .filter((f): f is readonly [string, string] => f[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${h(k)}" value="${h(v)}">`)
    .join('');
}
