export interface CookieNames {
  readonly session: string;
  readonly device: string;
  readonly csrf: string;
  readonly flash: string;
}

/** Over https the cookies take the __Host- prefix: host-only, Secure, Path=/ enforced by browsers. */
export function cookieNames(https: boolean): CookieNames {
  const prefix = https ? '__Host-' : '';
  return { session: `${prefix}tickler_session`, device: `${prefix}tickler_device`, csrf: `${prefix}tickler_csrf`, flash: `${prefix}tickler_flash` };
}

/**
 * HttpOnly: scripts never see them. SameSite=Lax: sent on the top-level navigation that brings the
 * user from the app to the authorize page (Strict would drop the session there), withheld from
 * cross-site form posts. Secure whenever the public address is https.
 */
export function cookieOptions(https: boolean, maxAgeSeconds?: number) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: https, ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }) };
}
