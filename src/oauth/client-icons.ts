import { unixSeconds, type Clock } from '../lib/clock.js';
import type { Client, Store } from '../storage/store.js';
import { InvalidClientInput } from './clients.service.js';

/** An icon's largest size: a small square image, stored in the database and sent with pages. */
export const MAX_ICON_BYTES = 64 * 1024;

/**
 * The image formats an icon may be, known by their first bytes, never by the name or type the
 * browser sent: the server says what it serves. SVG is not among them: it can carry script.
 */
export function iconMediaType(bytes: Buffer): string | undefined {
  const starts = (sig: readonly number[], at = 0): boolean => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

/** Stores an uploaded icon after checking its size and format; InvalidClientInput otherwise. */
export async function setIcon(deps: { store: Store; clock: Clock }, client: Client, bytes: Buffer): Promise<void> {
  if (bytes.length === 0) throw new InvalidClientInput('choose an image file');
  if (bytes.length > MAX_ICON_BYTES) throw new InvalidClientInput(`the icon must be at most ${MAX_ICON_BYTES / 1024} KB`);
  const mediaType = iconMediaType(bytes);
  if (!mediaType) throw new InvalidClientInput('the icon must be a PNG, JPEG, GIF or WebP image');
  await deps.store.transaction((tx) => tx.clients.setIcon(client.pk, { mediaType, data: bytes, updatedAt: unixSeconds(deps.clock) }));
}

export async function removeIcon(deps: { store: Store }, client: Client): Promise<void> {
  await deps.store.transaction((tx) => tx.clients.setIcon(client.pk, null));
}
