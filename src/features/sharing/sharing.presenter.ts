import type { PublicRecord } from '../../http/xml.js';
import type { Collaboration } from '../../storage/store.js';

/**
 * account/collaborators.php as the hosted service documents it: `id` (the collaborator's user id,
 * text), `name`, and what they let the caller do: reassign tasks to them, share tasks with them.
 */
export function collaboratorRecord(c: Collaboration): PublicRecord {
  return { id: c.otherUserid, name: c.otherAlias, reassignable: c.otherAllowsReassign ? 1 : 0, sharable: c.otherAllowsShare ? 1 : 0 };
}

/**
 * An invitation or collaboration as the additive calls show it: the collaborator's record, its
 * state (sent, received, accepted), and what the caller lets them do (allowreassign, allowshare).
 */
export function invitationRecord(c: Collaboration): PublicRecord {
  return { ...collaboratorRecord(c), state: c.state, allowreassign: c.allowReassign ? 1 : 0, allowshare: c.allowShare ? 1 : 0 };
}
