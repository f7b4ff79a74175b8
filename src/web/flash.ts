import type { FastifyReply, FastifyRequest } from 'fastify';
import { openWith, sealFor } from '../lib/crypto.js';
import { cookieOptions, type CookieNames } from './cookies.js';

/**
 * What a form post leaves for the page it redirects to (Post/Redirect/Get: a reload never asks to
 * send a form again): a message, the fields to fill in again (never a password), and a secret to
 * show once (a new client secret, an invitation link).
 */
export interface Flash {
  readonly error?: string;
  readonly notice?: string;
  readonly fields?: Readonly<Record<string, string>>;
  readonly secret?: { readonly label: string; readonly value: string };
  /** A throttled post: how long to wait. The page that shows it answers 429 with Retry-After. */
  readonly retryAfter?: number;
}

const PURPOSE = 'page flash';
/** Long enough for the redirect that follows; a flash is read once, then cleared. */
const FLASH_SECONDS = 120;
/** Browsers keep cookies of about 4 KB; fields that would not fit are not kept. */
const MAX_SEALED = 3500;

/**
 * A flash travels in a cookie sealed (AES-256-GCM) under a key derived from the browser's CSRF
 * secret, an HttpOnly random cookie only this browser holds: nobody else can read it (it may hold
 * a new client secret) or forge it (a message the page shows as the server's). HttpOnly, like
 * every cookie here, and short-lived.
 */
export function setFlash(request: FastifyRequest, reply: FastifyReply, names: CookieNames, https: boolean, flash: Flash): void {
  const key = request.cookies[names.csrf];
  if (!key) return;
  let sealed = sealFor(key, PURPOSE, JSON.stringify(flash));
  if (sealed.length > MAX_SEALED) sealed = sealFor(key, PURPOSE, JSON.stringify({ ...flash, fields: undefined }));
  reply.setCookie(names.flash, sealed, cookieOptions(https, FLASH_SECONDS));
}

/** A sealed flash opened with the browser's CSRF secret, or undefined (tests read what a post left). */
export function openFlash(sealed: string, csrfSecret: string): Flash | undefined {
  const text = openWith(csrfSecret, PURPOSE, sealed);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Flash;
  } catch {
    return undefined;
  }
}

/** The flash left for this page, if any, and clears it: a reload shows the page without it. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, names: CookieNames, https: boolean): Flash {
  const sealed = request.cookies[names.flash];
  if (sealed === undefined) return {};
  reply.clearCookie(names.flash, cookieOptions(https));
  const key = request.cookies[names.csrf];
  return (key && openFlash(sealed, key)) || {};
}
