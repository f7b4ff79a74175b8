/**
 * The sharing part of the storage port: collaborations between two accounts, joint tasks (one copy
 * per participant, each in its own account: docs/decisions/0015), who reassigned a task, and saved
 * searches.
 */

/** One side's view of a collaboration with another account. */
export interface Collaboration {
  readonly otherPk: number;
  readonly otherUserid: string;
  readonly otherAlias: string;
  /** sent: this side invited; received: the other did; accepted: both agreed. */
  readonly state: 'sent' | 'received' | 'accepted';
  /** What this side lets the other do: reassign tasks to it, share tasks with it. */
  readonly allowReassign: boolean;
  readonly allowShare: boolean;
  /** What the other side lets this side do (reassign to it, share with it). */
  readonly otherAllowsReassign: boolean;
  readonly otherAllowsShare: boolean;
}

/** A participant's copy of a joint task. */
export interface ShareMember {
  readonly userPk: number;
  readonly taskId: number;
}

export interface Share {
  readonly pk: number;
  readonly ownerPk: number;
  /** Every copy, the owner's included, ordered by account. */
  readonly members: readonly ShareMember[];
}

/** What a task's sharing fields say, as seen by the account that holds the copy. */
export interface TaskSharing {
  /** The owner's userid, when the task is shared. */
  readonly owner?: string;
  /** The other participants' userids (neither the viewer nor the owner), sorted. */
  readonly with?: readonly string[];
  /** The userid of who reassigned the task to this account. */
  readonly addedby?: string;
}

export interface SavedSearch {
  readonly id: number;
  readonly name: string;
  readonly bool: 'All' | 'Any';
  /** The rules as JSON text: {"root":[…],"1":[…]} (validated by the service before storing). */
  readonly rules: string;
  readonly modified: number;
}

export interface SharingRepo {
  /** This account's collaborations, every state, by the other's userid. */
  collaborations(userPk: number): Promise<Collaboration[]>;
  collaboration(userPk: number, otherPk: number): Promise<Collaboration | null>;
  /** Writes both sides of a new invitation (the invitee allows nothing until it accepts). */
  invite(fromPk: number, toPk: number, allow: { reassign: boolean; share: boolean }, now: number): Promise<void>;
  /** Both sides become accepted; the accepting side's flags are set. False when nothing was received. */
  accept(userPk: number, otherPk: number, allow: { reassign: boolean; share: boolean }): Promise<boolean>;
  /** Sets this side's flags; false when there is no collaboration. */
  setAllowed(userPk: number, otherPk: number, allow: { reassign: boolean; share: boolean }): Promise<boolean>;
  /** Removes both sides (decline, withdraw or end); false when there was none. */
  end(userPk: number, otherPk: number): Promise<boolean>;

  /**
   * Every account a write of this one may reach: its collaborators and invitees, and everyone
   * holding a copy of a joint task it holds a copy of. Ascending.
   */
  partners(userPk: number): Promise<number[]>;
  /** The share a copy belongs to, with every copy. */
  shareOf(userPk: number, taskId: number): Promise<Share | null>;
  /** shareOf() of many tasks of one account in one read: task id → its share; tasks in none are absent. */
  sharesOf(userPk: number, taskIds: readonly number[]): Promise<Map<number, Share>>;
  /** Makes the owner's task a share of one (the owner) and returns its pk. */
  createShare(ownerPk: number, taskId: number): Promise<number>;
  addMember(sharePk: number, member: ShareMember): Promise<void>;
  removeMember(member: ShareMember): Promise<void>;
  /** Ends the share of the owner's task (every copy leaves it; the copies themselves stay). */
  dropShare(ownerPk: number, taskId: number): Promise<void>;
  /** Shares owned by `ownerPk` that `memberPk` holds a copy of. */
  sharesBetween(ownerPk: number, memberPk: number): Promise<Share[]>;
  /** The sharing fields of the given tasks of one account, in one read (ids without any are absent). */
  forTasks(userPk: number, ids: readonly number[]): Promise<Map<number, TaskSharing>>;
  setAddedBy(userPk: number, taskId: number, byPk: number): Promise<void>;

  searches(userPk: number): Promise<SavedSearch[]>;
  search(userPk: number, id: number): Promise<SavedSearch | null>;
  addSearch(userPk: number, s: Omit<SavedSearch, 'id'>): Promise<number>;
  updateSearch(userPk: number, s: SavedSearch): Promise<boolean>;
  deleteSearch(userPk: number, id: number): Promise<boolean>;
  countSearches(userPk: number): Promise<number>;
}
