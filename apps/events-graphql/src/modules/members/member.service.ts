import { randomUUID } from 'node:crypto';
import { isRowId } from '@agora/db';
import { BadInput, Forbidden, NotFound, type Logger, type PubSub } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import { parseAcct, type Actor, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { MemberActivityRecorder, MemberActivitySubject } from '../activities/activity.service.js';
import { groupNotFound, type GroupService } from '../groups/group.service.js';
import type { MemberMails } from './member-mails.js';
import {
  GROUP_ADMINISTRATOR,
  isAdministratorRole,
  isModeratorRole,
  MEMBER_COLUMNS,
  type MemberRole,
  type MemberRow,
} from './member-row.js';
import { publishMembershipChange } from './membership-changes.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const MEMBER_MESSAGES = {
  alreadyMember: 'You are already a member of this group',
  cannotJoin: 'You cannot join this group',
  memberNotFound: 'Member not found',
  onlyAdministratorLeave: "You can't leave this group because you are the only administrator",
  notMember: 'You are not a member of this group',
  cannotInvite: 'You cannot invite to this group',
  invitedNotFound: "Profile invited doesn't exist",
  invitationNotFound: "This invitation doesn't exist.",
  cannotAccept: "You can't accept this invitation with this profile.",
  cannotReject: "You can't reject this invitation with this profile.",
  notModerator: 'You are not a moderator or admin for this group',
  onlyAdministratorDemote:
    "You can't set yourself to a lower member role for this group because you are the only administrator",
  notARequest: 'This membership is not a pending request',
  alreadyRejected: 'This member already has been rejected.',
  cannotRemove: "You don't have the right to remove this member.",
  onlyAdministratorRemove: 'Cannot remove the last administrator of a group',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;

export interface MemberServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  /** Finds the group a membership is of (not suspended). */
  groups: Pick<GroupService, 'byId'>;
  pubsub: PubSub;
  logger: Logger;
  mails: MemberMails;
  /** Member URLs are `<publicUrl>/member/<uuid>`. */
  publicUrl: string;
  /** host[:port] of this instance: `name@<domain>` names a local profile. */
  domain: string;
  /** Records each change in the group's activity stream, in the change's transaction (issue 14 §8). */
  activities?: MemberActivityRecorder;
  /** Told of each committed change (the group federation: ADR 0041); a hook's failure is its own. */
  hooks?: MemberHooks;
}

/**
 * What the group federation hears of, once a change committed (ADR 0041). Each gets the membership
 * row as it is after the change (as it was, for a membership that went).
 */
export interface MemberHooks {
  /** A profile joined or asked to join (role MEMBER or NOT_APPROVED). */
  joined(member: MemberRow): Promise<void>;
  /** A profile left. */
  left(member: MemberRow): Promise<void>;
  /** A moderator invited a profile (role INVITED). */
  invited(member: MemberRow): Promise<void>;
  /** The invited profile accepted (MEMBER) or declined (REJECTED, the row gone). */
  invitationAnswered(member: MemberRow, accepted: boolean): Promise<void>;
  /** A moderator approved (MEMBER) or rejected (REJECTED) a request. */
  decided(member: MemberRow, approved: boolean, moderator: Actor): Promise<void>;
  /** A moderator changed the member's role. */
  updated(member: MemberRow, moderator: Actor): Promise<void>;
  /** A moderator removed the member (REJECTED when excluded, else the row gone). */
  removed(member: MemberRow, moderator: Actor): Promise<void>;
}

/** How a remote group's own instance decided a membership (its Accept, Reject, Invite, Remove, Update). */
export type GroupDecision =
  { kind: 'role'; role: MemberRole } | { kind: 'invited'; inviterId: string; url: string | null };

/**
 * The rules of memberships (spec not-shown.md §2.2, behaviours 19–23). Every change runs in a
 * transaction that first locks the group's `group_details` row, so changes to one group's members
 * happen one after the other: two administrators leaving at once cannot both be "not the last".
 */
export class MemberService {
  constructor(private readonly options: MemberServiceOptions) {}

  /**
   * The acting profile asks to join: OPEN groups take it as MEMBER, MODERATED ones as NOT_APPROVED. A
   * remote group decides for itself (NOT_APPROVED until its Accept). `url`: the remote Join's id, which
   * names the membership on both sides (a remote profile's request).
   */
  async join(actor: Actor, groupId: string, options: { url?: string | null } = {}): Promise<MemberRow> {
    const group = await this.options.groups.byId(groupId, false);
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const openness = await this.lockGroup(group.id, transaction);
      if (await this.membership(actor.id, group.id, transaction)) {
        throw new Forbidden(MEMBER_MESSAGES.alreadyMember, REFUSAL);
      }
      if (group.local && openness === 'INVITE_ONLY') throw new Forbidden(MEMBER_MESSAGES.cannotJoin, REFUSAL);
      const joined = await this.insert(
        group.id,
        actor.id,
        group.local && openness === 'OPEN' ? 'MEMBER' : 'NOT_APPROVED',
        null,
        transaction,
        options.url ?? null,
      );
      await this.activity(
        openness === 'OPEN' ? 'member_joined' : 'member_request',
        joined,
        actor.id,
        transaction,
      );
      return joined;
    });
    await this.changed(member);
    if (member.role === 'NOT_APPROVED' && group.local)
      await this.options.mails.requested(member.id, group.id);
    await this.options.hooks?.joined(member);
    return member;
  }

  /** The acting profile leaves; the last administrator stays (behaviour 20). */
  async leave(actor: Actor, groupId: string): Promise<MemberRow> {
    const group = await this.options.groups.byId(groupId, false);
    const left = await this.options.sequelize.transaction(async (transaction) => {
      await this.lockGroup(group.id, transaction);
      const member = await this.membership(actor.id, group.id, transaction);
      if (!member) throw new NotFound(MEMBER_MESSAGES.memberNotFound, REFUSAL);
      if (isAdministratorRole(member.role) && (await this.administrators(group.id, transaction)) <= 1) {
        throw new Forbidden(MEMBER_MESSAGES.onlyAdministratorLeave, REFUSAL);
      }
      await this.delete(member.id, transaction);
      await this.activity('member_quit', member, actor.id, transaction);
      return member;
    });
    await this.options.hooks?.left(left);
    return left;
  }

  /** A moderator invites a profile (`name` or `name@domain`); a rejected profile may be invited again. */
  async invite(actor: Actor, groupId: string, targetUsername: string): Promise<MemberRow> {
    const group = await this.options.groups.byId(groupId, false);
    const member = await this.options.sequelize.transaction(async (transaction) => {
      await this.lockGroup(group.id, transaction);
      const inviter = await this.membership(actor.id, group.id, transaction);
      if (!inviter) throw new Forbidden(MEMBER_MESSAGES.notMember, REFUSAL);
      if (!isModeratorRole(inviter.role)) throw new Forbidden(MEMBER_MESSAGES.cannotInvite, REFUSAL);
      const target = await this.person(targetUsername);
      if (!target) throw new NotFound(MEMBER_MESSAGES.invitedNotFound, REFUSAL);
      const existing = await this.membership(target.id, group.id, transaction);
      if (existing && existing.role !== 'REJECTED')
        throw new Forbidden(MEMBER_MESSAGES.cannotInvite, REFUSAL);
      const invited = existing
        ? await this.setRole(existing.id, 'INVITED', transaction, actor.id)
        : await this.insert(group.id, target.id, 'INVITED', actor.id, transaction);
      await this.activity('member_invited', invited, actor.id, transaction);
      return invited;
    });
    await this.options.mails.invited(member.id);
    await this.options.hooks?.invited(member);
    return member;
  }

  /** The invited profile (one of the caller's) accepts: it becomes a MEMBER. */
  acceptInvitation(user: SessionUser, memberId: string): Promise<MemberRow> {
    return this.answerInvitation(memberId, true, (id, transaction) =>
      this.invitation(user, id, MEMBER_MESSAGES.cannotAccept, transaction),
    );
  }

  /** The invited profile (one of the caller's) declines: the invitation goes. */
  rejectInvitation(user: SessionUser, memberId: string): Promise<MemberRow> {
    return this.answerInvitation(memberId, false, (id, transaction) =>
      this.invitation(user, id, MEMBER_MESSAGES.cannotReject, transaction),
    );
  }

  /** A remote profile's Accept or Reject of its invitation `memberId` (it must be the invited one). */
  answerInvitationOf(actor: Actor, memberId: string, accept: boolean): Promise<MemberRow> {
    return this.answerInvitation(memberId, accept, async (id, transaction) => {
      const found = await this.member(id, transaction);
      await this.lockGroup(found.parentId, transaction);
      const invitation = await this.byId(id, transaction);
      if (!invitation || invitation.role !== 'INVITED') {
        throw new NotFound(MEMBER_MESSAGES.invitationNotFound, REFUSAL);
      }
      if (invitation.actorId !== actor.id) {
        throw new Forbidden(accept ? MEMBER_MESSAGES.cannotAccept : MEMBER_MESSAGES.cannotReject, REFUSAL);
      }
      return invitation;
    });
  }

  private async answerInvitation(
    memberId: string,
    accept: boolean,
    find: (memberId: string, transaction: Transaction) => Promise<MemberRow>,
  ): Promise<MemberRow> {
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const invitation = await find(memberId, transaction);
      if (accept) {
        const accepted = await this.setRole(invitation.id, 'MEMBER', transaction);
        await this.activity('member_accepted_invitation', accepted, accepted.actorId, transaction);
        return accepted;
      }
      await this.delete(invitation.id, transaction);
      const rejected: MemberRow = { ...invitation, role: 'REJECTED' };
      await this.activity('member_rejected_invitation', rejected, invitation.actorId, transaction);
      return rejected;
    });
    if (accept) await this.changed(member);
    await this.options.hooks?.invitationAnswered(member, accept);
    return member;
  }

  /**
   * A remote group's own instance decided a local profile's membership (issue 14 §10): its Accept or
   * Reject of a Join, its Invite, its Remove or its Update of the role. The caller has checked that
   * the decision speaks for the group (ADR 0041); `member` is null for an Invite of a profile without
   * a row yet. Returns the row as it now is.
   */
  async recordGroupDecision(group: Actor, person: Actor, decision: GroupDecision): Promise<MemberRow | null> {
    if (group.local || group.type !== 'Group' || !person.local) return null;
    const member = await this.options.sequelize.transaction(async (transaction) => {
      await this.lockGroup(group.id, transaction);
      const existing = await this.membership(person.id, group.id, transaction);
      if (decision.kind === 'invited') {
        if (existing && existing.role !== 'REJECTED') return null;
        const invited = existing
          ? await this.setRole(existing.id, 'INVITED', transaction, decision.inviterId)
          : await this.insert(group.id, person.id, 'INVITED', decision.inviterId, transaction, decision.url);
        await this.activity('member_invited', invited, decision.inviterId, transaction);
        return invited;
      }
      if (!existing || existing.role === decision.role) return null;
      const changed = await this.setRole(existing.id, decision.role, transaction);
      const subject: MemberActivitySubject =
        existing.role === 'NOT_APPROVED'
          ? decision.role === 'REJECTED'
            ? 'member_rejected'
            : 'member_approved'
          : decision.role === 'REJECTED'
            ? 'member_removed'
            : 'member_updated';
      await this.activity(subject, changed, group.id, transaction, existing.role);
      return changed;
    });
    if (!member) return null;
    await this.changed(member);
    if (member.role === 'INVITED') await this.options.mails.invited(member.id);
    return member;
  }

  /** The membership with this ActivityPub id (a Join's, an Invite's or our own `/member/<uuid>`). */
  async byUrl(url: string): Promise<MemberRow | null> {
    const [row] = await this.options.sequelize.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.url = :url`,
      { type: QueryTypes.SELECT, replacements: { url } },
    );
    return row ?? null;
  }

  /** A moderator approves a request (NOT_APPROVED → MEMBER); the member is told by e-mail. */
  async approve(actor: Actor, memberId: string): Promise<MemberRow> {
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const request = await this.moderated(actor, memberId, MEMBER_MESSAGES.notModerator, transaction);
      if (request.role !== 'NOT_APPROVED') throw new BadInput(MEMBER_MESSAGES.notARequest, REFUSAL);
      const approved = await this.setRole(request.id, 'MEMBER', transaction);
      await this.activity('member_approved', approved, actor.id, transaction);
      return approved;
    });
    await this.changed(member);
    await this.options.mails.approved(member.id);
    await this.options.hooks?.decided(member, true, actor);
    return member;
  }

  /** A moderator rejects a request (NOT_APPROVED → REJECTED). */
  async reject(actor: Actor, memberId: string): Promise<MemberRow> {
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const request = await this.moderated(actor, memberId, MEMBER_MESSAGES.notModerator, transaction);
      if (request.role !== 'NOT_APPROVED') throw new BadInput(MEMBER_MESSAGES.notARequest, REFUSAL);
      const rejected = await this.setRole(request.id, 'REJECTED', transaction);
      await this.activity('member_rejected', rejected, actor.id, transaction);
      return rejected;
    });
    await this.options.hooks?.decided(member, false, actor);
    return member;
  }

  /**
   * A moderator changes a member's role (behaviour 22). Administrators alone make or unmake
   * administrators, and the last administrator cannot be lowered.
   */
  async update(actor: Actor, memberId: string, role: MemberRole): Promise<MemberRow> {
    // CREATOR "should not be used"; requests and invitations have their own operations.
    if (!['MEMBER', 'MODERATOR', 'ADMINISTRATOR'].includes(role)) {
      throw new BadInput('Invalid arguments passed', { code: 'invalid_argument' });
    }
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const target = await this.moderated(actor, memberId, MEMBER_MESSAGES.notModerator, transaction);
      const own = (await this.membership(actor.id, target.parentId, transaction))!;
      const touchesAdministrators = role === 'ADMINISTRATOR' || isAdministratorRole(target.role);
      if (touchesAdministrators && !isAdministratorRole(own.role)) {
        throw new Forbidden(MEMBER_MESSAGES.notModerator, REFUSAL);
      }
      if (
        isAdministratorRole(target.role) &&
        !isAdministratorRole(role) &&
        (await this.administrators(target.parentId, transaction)) <= 1
      ) {
        throw new Forbidden(MEMBER_MESSAGES.onlyAdministratorDemote, REFUSAL);
      }
      const updated = await this.setRole(target.id, role, transaction);
      await this.activity('member_updated', updated, actor.id, transaction, target.role);
      return updated;
    });
    await this.changed(member);
    await this.options.hooks?.updated(member, actor);
    return member;
  }

  /** A moderator removes a member; `exclude` keeps it as REJECTED so it cannot ask again. */
  async remove(actor: Actor, memberId: string, exclude: boolean): Promise<MemberRow> {
    const member = await this.options.sequelize.transaction(async (transaction) => {
      const found = await this.member(memberId, transaction);
      await this.lockGroup(found.parentId, transaction);
      // Read again under the lock: a concurrent change may have come first.
      const target = await this.member(found.id, transaction);
      if (target.role === 'REJECTED') throw new BadInput(MEMBER_MESSAGES.alreadyRejected, REFUSAL);
      const own = await this.membership(actor.id, target.parentId, transaction);
      if (!isModeratorRole(own?.role)) throw new Forbidden(MEMBER_MESSAGES.cannotRemove, REFUSAL);
      if (isAdministratorRole(target.role)) {
        if (!isAdministratorRole(own!.role)) throw new Forbidden(MEMBER_MESSAGES.cannotRemove, REFUSAL);
        if ((await this.administrators(target.parentId, transaction)) <= 1) {
          throw new Forbidden(MEMBER_MESSAGES.onlyAdministratorRemove, REFUSAL);
        }
      }
      const removed = exclude ? await this.setRole(target.id, 'REJECTED', transaction) : target;
      if (!exclude) await this.delete(target.id, transaction);
      await this.activity('member_removed', removed, actor.id, transaction);
      return removed;
    });
    await this.options.hooks?.removed(member, actor);
    return member;
  }

  /** A person by `name`, `name@<this domain>` or a known remote `name@domain`. */
  private async person(username: string): Promise<Actor | null> {
    const address = parseAcct(username, this.options.domain);
    if (!address) return null;
    const actor = await this.options.actors.findByUsername(address.username, address.domain, ['Person']);
    return actor && !actor.suspended ? actor : null;
  }

  /**
   * Locks the group's details row until the transaction ends (a remote group gets one first) and
   * returns its openness.
   */
  private async lockGroup(groupId: string, transaction: Transaction): Promise<string> {
    await this.options.sequelize.query(
      'INSERT INTO group_details (actor_id) VALUES (:groupId) ON CONFLICT (actor_id) DO NOTHING',
      { transaction, replacements: { groupId } },
    );
    const [row] = await this.options.sequelize.query<{ openness: string }>(
      'SELECT openness FROM group_details WHERE actor_id = :groupId FOR UPDATE',
      { type: QueryTypes.SELECT, transaction, replacements: { groupId } },
    );
    if (!row) throw groupNotFound();
    return row.openness;
  }

  /** The invitation `memberId`, for one of the user's profiles. */
  private async invitation(
    user: SessionUser,
    memberId: string,
    notYours: string,
    transaction: Transaction,
  ): Promise<MemberRow> {
    const found = isRowId(memberId) ? await this.byId(memberId, transaction) : null;
    if (!found) throw new NotFound(MEMBER_MESSAGES.invitationNotFound, REFUSAL);
    await this.lockGroup(found.parentId, transaction);
    const invitation = await this.byId(memberId, transaction);
    if (!invitation || invitation.role !== 'INVITED') {
      throw new NotFound(MEMBER_MESSAGES.invitationNotFound, REFUSAL);
    }
    const person = await this.options.actors.findById(invitation.actorId);
    if (!person || person.userId !== user.id) throw new Forbidden(notYours, REFUSAL);
    return invitation;
  }

  /** The membership `memberId`, locked with its group, when the acting profile moderates that group. */
  private async moderated(
    actor: Actor,
    memberId: string,
    notModerator: string,
    transaction: Transaction,
  ): Promise<MemberRow> {
    const found = await this.member(memberId, transaction);
    await this.lockGroup(found.parentId, transaction);
    const own = await this.membership(actor.id, found.parentId, transaction);
    if (!isModeratorRole(own?.role)) throw new Forbidden(notModerator, REFUSAL);
    const target = await this.byId(found.id, transaction);
    if (!target) throw new NotFound(MEMBER_MESSAGES.memberNotFound, REFUSAL);
    return target;
  }

  private async member(memberId: string, transaction: Transaction): Promise<MemberRow> {
    const found = isRowId(memberId) ? await this.byId(memberId, transaction) : null;
    if (!found) throw new NotFound(MEMBER_MESSAGES.memberNotFound, REFUSAL);
    return found;
  }

  private async byId(id: string, transaction: Transaction): Promise<MemberRow | null> {
    const [row] = await this.options.sequelize.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.id = :id`,
      { type: QueryTypes.SELECT, transaction, replacements: { id } },
    );
    return row ?? null;
  }

  private async membership(
    actorId: string,
    groupId: string,
    transaction: Transaction,
  ): Promise<MemberRow | null> {
    const [row] = await this.options.sequelize.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.parent_id = :groupId AND m.actor_id = :actorId`,
      { type: QueryTypes.SELECT, transaction, replacements: { groupId, actorId } },
    );
    return row ?? null;
  }

  private async administrators(groupId: string, transaction: Transaction): Promise<number> {
    const [row] = await this.options.sequelize.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM members WHERE parent_id = :groupId AND role IN (:roles)',
      { type: QueryTypes.SELECT, transaction, replacements: { groupId, roles: GROUP_ADMINISTRATOR } },
    );
    return row!.count;
  }

  private async insert(
    groupId: string,
    actorId: string,
    role: MemberRole,
    invitedById: string | null,
    transaction: Transaction,
    url: string | null = null,
  ): Promise<MemberRow> {
    const uuid = randomUUID();
    const [row] = await this.options.sequelize.query<MemberRow>(
      `INSERT INTO members AS m (uuid, url, parent_id, actor_id, role, invited_by_id)
       VALUES (:uuid, :url, :groupId, :actorId, :role, :invitedById)
       RETURNING ${MEMBER_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        transaction,
        replacements: {
          uuid,
          url: url ?? `${this.options.publicUrl}/member/${uuid}`,
          groupId,
          actorId,
          role,
          invitedById,
        },
      },
    );
    return row!;
  }

  private async setRole(
    memberId: string,
    role: MemberRole,
    transaction: Transaction,
    invitedById?: string,
  ): Promise<MemberRow> {
    const [row] = await this.options.sequelize.query<MemberRow>(
      `UPDATE members AS m SET role = :role, updated_at = now()${invitedById ? ', invited_by_id = :invitedById' : ''}
       WHERE m.id = :memberId RETURNING ${MEMBER_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        transaction,
        replacements: { memberId, role, invitedById: invitedById ?? null },
      },
    );
    return row!;
  }

  private async delete(memberId: string, transaction: Transaction): Promise<void> {
    await this.options.sequelize.query('DELETE FROM members WHERE id = :memberId', {
      transaction,
      replacements: { memberId },
    });
  }

  /** The change in the group's activity stream (issue 14 §8), when a recorder is wired. */
  private async activity(
    subject: MemberActivitySubject,
    member: MemberRow,
    authorId: string,
    transaction: Transaction,
    oldRole?: MemberRole,
  ): Promise<void> {
    await this.options.activities?.member(subject, member, authorId, transaction, oldRole);
  }

  /** `groupMembershipChanged` for the member's profile, once committed. */
  private async changed(member: MemberRow): Promise<void> {
    await publishMembershipChange(this.options.pubsub, this.options.logger, {
      personId: member.actorId,
      groupId: member.parentId,
      memberId: member.id,
      role: member.role,
    });
  }
}
