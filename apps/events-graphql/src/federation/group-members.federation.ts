import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, isUuid, logFailure, type Logger, NotFound } from '@agora/core';
import {
  EVENTS_LD_CONTEXT,
  idOf,
  sameOrigin,
  typeOf,
  type Actor,
  type ActorStore,
  type Federation,
  type InboxContext,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { roleInGroup } from '../modules/members/member-roles.js';
import {
  MEMBER_COLUMNS,
  MEMBER_OF_GROUP,
  isMemberRole,
  type MemberRole,
  type MemberRow,
} from '../modules/members/member-row.js';
import { MEMBER_MESSAGES, type MemberHooks, type MemberService } from '../modules/members/member.service.js';
import type { ServedObject } from './events.federation.js';
import { membersUrl } from './group-content-objects.js';

export interface GroupMemberFederationOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
  logger: Logger;
  publicUrl: string;
}

/** The roles a `Member` object may carry in an Update (requests and invitations have their own activities). */
const SETTABLE_ROLES: readonly MemberRole[] = ['MEMBER', 'MODERATOR', 'ADMINISTRATOR'];

/**
 * Group membership over ActivityPub (issue 14 §10, not-shown.md §5; ADR 0041), shaped as the
 * reference speaks it. A local profile's Join, Leave and answers to invitations go to a remote group;
 * a local group answers remote Joins with Accept/Reject (signed as the group) and tells its remote
 * members of role changes and removals; a remote group's own instance decides its members. The
 * events' Join/Leave/Accept/Reject handlers run beside these: each acts only on its own objects.
 */
export class GroupMemberFederation {
  private readonly logger: Logger;

  constructor(private readonly options: GroupMemberFederationOptions) {
    this.logger = options.logger.child({ component: 'group-member-federation' });
  }

  // ---- Outbound: committed membership changes ---------------------------------------------------

  /** The member service's after-commit hooks (the composition root wires them). */
  memberHooks(): MemberHooks {
    return {
      joined: (member) =>
        this.safely('join', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person) return;
          if (!group.local && person.local) {
            await this.send(person, [group.id], {
              id: member.url,
              type: 'Join',
              actor: person.uri,
              object: group.uri,
              to: [group.uri],
              cc: [],
            });
          } else if (group.local && !person.local && member.role === 'MEMBER') {
            await this.answerJoin('Accept', member, group, person);
          }
        }),
      decided: (member, approved, moderator) =>
        this.safely('membership decision', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person) return;
          if (group.local && !person.local) {
            await this.answerJoin(approved ? 'Accept' : 'Reject', member, group, person);
          } else if (!group.local && moderator.local) {
            // A local moderator of a remote group: the group's instance decides, told as the reference tells it.
            const type = approved ? 'Accept' : 'Reject';
            await this.send(moderator, [group.id], {
              id: `${this.options.publicUrl}/${type.toLowerCase()}/join/${member.id}`,
              type,
              actor: moderator.uri,
              object: memberObject(member, person, group),
              attributedTo: group.uri,
              to: [group.uri],
              cc: [],
            });
          }
        }),
      left: (member) =>
        this.safely('leave', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person) return;
          if (!group.local) {
            if (!person.local) return;
            await this.send(person, [group.id], {
              id: `${this.options.publicUrl}/leave/group/${randomUUID()}`,
              type: 'Leave',
              actor: person.uri,
              object: group.uri,
              to: [group.uri],
              cc: [],
            });
            return;
          }
          // A local group's other remote members are told: a local member's own Leave (the reference's
          // shape, to the members), a remote member's relayed by the group with Announce (ADR 0041).
          const others = (await this.audienceOf(group, person)).filter((id) => id !== person.id);
          const activity = {
            id: `${this.options.publicUrl}/leave/group/${randomUUID()}`,
            type: 'Leave',
            actor: person.uri,
            object: group.uri,
            attributedTo: group.uri,
            to: [membersUrl(group)],
            cc: [group.uri],
          };
          if (person.local) await this.send(person, others, activity);
          else
            await this.send(group, others, {
              id: `${this.options.publicUrl}/announces/${randomUUID()}`,
              type: 'Announce',
              actor: group.uri,
              object: activity,
              to: [membersUrl(group)],
              cc: [],
            });
        }),
      invited: (member) =>
        this.safely('invitation', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person || !member.invitedById || (group.local && person.local)) return;
          const inviter = await this.options.actors.findById(member.invitedById);
          if (!inviter?.local) return;
          const recipients = [person, group].filter((actor) => !actor.local).map((actor) => actor.id);
          await this.send(inviter, recipients, {
            id: member.url,
            type: 'Invite',
            actor: inviter.uri,
            object: group.uri,
            target: person.uri,
            attributedTo: group.uri,
            to: [person.uri],
            cc: [group.uri],
          });
        }),
      invitationAnswered: (member, accepted) =>
        this.safely('invitation answer', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || group.local || !person?.local) return;
          const type = accepted ? 'Accept' : 'Reject';
          await this.send(person, [group.id], {
            id: `${this.options.publicUrl}/${type.toLowerCase()}/invite/member/${member.id}`,
            type,
            actor: person.uri,
            object: memberObject(member, person, group),
            attributedTo: group.uri,
            to: [group.uri],
            cc: [],
          });
        }),
      updated: (member, moderator) =>
        this.safely('member update', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person || (!group.local && !moderator.local)) return;
          const sender = moderator.local ? moderator : group;
          await this.send(sender, await this.audienceOf(group, person), {
            id: `${this.options.publicUrl}/update/member/${member.id}/${randomUUID()}`,
            type: 'Update',
            actor: sender.uri,
            object: memberObject(member, person, group),
            attributedTo: group.uri,
            to: [person.uri],
            cc: [group.uri],
          });
        }),
      removed: (member, moderator) =>
        this.safely('member removal', async () => {
          const { group, person } = await this.partiesOf(member);
          if (!group || !person || (!group.local && !moderator.local)) return;
          const sender = moderator.local ? moderator : group;
          await this.send(sender, await this.audienceOf(group, person), {
            id: `${this.options.publicUrl}/remove/member/${member.id}/${randomUUID()}`,
            type: 'Remove',
            actor: sender.uri,
            object: member.url,
            origin: group.uri,
            attributedTo: group.uri,
            to: [person.uri],
            cc: [group.uri],
          });
        }),
    };
  }

  /** The group's Accept or Reject of a Join (id `/accept/join/<member id>`), to the joiner and the group's remote members. */
  private async answerJoin(type: 'Accept' | 'Reject', member: MemberRow, group: Actor, person: Actor) {
    const recipients = type === 'Accept' ? await this.audienceOf(group, person) : [person.id];
    await this.send(group, recipients, {
      id: `${this.options.publicUrl}/${type.toLowerCase()}/join/${member.id}`,
      type,
      actor: group.uri,
      object: memberObject(member, person, group),
      to: [person.uri],
      cc: [group.uri],
    });
  }

  /**
   * Who hears of a change to `person`'s membership: of a local group, the person when remote and the
   * group's remote members; of a remote group, the group (its instance decides) and the person when remote.
   */
  private async audienceOf(group: Actor, person: Actor): Promise<string[]> {
    if (!group.local) return [group.id, ...(person.local ? [] : [person.id])];
    const rows = await this.options.sequelize.query<{ actorId: string }>(
      `SELECT m.actor_id::text AS "actorId" FROM members m JOIN actors a ON a.id = m.actor_id
        WHERE m.parent_id = :groupId AND m.role IN (:roles) AND a.domain IS NOT NULL`,
      { type: QueryTypes.SELECT, replacements: { groupId: group.id, roles: MEMBER_OF_GROUP } },
    );
    const ids = new Set(rows.map((row) => row.actorId));
    if (!person.local) ids.add(person.id);
    return [...ids];
  }

  private async send(sender: Actor, recipients: string[], activity: Record<string, unknown>): Promise<void> {
    if (!sender.local || recipients.length === 0) return;
    await this.options.federation.delivery.deliver(
      { '@context': EVENTS_LD_CONTEXT, ...activity },
      { senderActorId: sender.id, recipients },
    );
  }

  // ---- Inbound: the inbox's handlers -------------------------------------------------------------

  /** Adds the membership handlers to the inbox (the composition root calls it once). */
  registerInbox(members: MemberService): void {
    const inbox = this.options.federation.inbox;
    inbox.on('Join', (context) => this.receiveJoin(context, members));
    inbox.on('Leave', (context) => this.receiveLeave(context, members));
    for (const type of ['Accept', 'Reject'] as const) {
      const handler = (context: InboxContext) => this.receiveAnswer(context, members, type === 'Accept');
      for (const objectType of ['', ':Join', ':Member', ':Invite']) inbox.on(`${type}${objectType}`, handler);
    }
    inbox.on('Invite', (context) => this.receiveInvite(context, members));
    const remove = (context: InboxContext) => this.receiveRemove(context, members);
    inbox.on('Remove', remove).on('Remove:Member', remove);
    inbox.on('Update:Member', (context) => this.receiveUpdate(context, members));
  }

  /** A remote person's Join of a local group: the member service's rules; refused → Reject. */
  private async receiveJoin({ activity, signer }: InboxContext, members: MemberService): Promise<void> {
    const group = await this.localGroup(idOf(activity.object));
    if (!group || signer.type !== 'Person') return;
    const id = typeof activity.id === 'string' ? activity.id : null;
    // The Join's id names the membership on both sides, when it is the joiner's own URL.
    const url = id && sameOrigin(id, signer.uri) && !(await members.byUrl(id)) ? id : null;
    try {
      await members.join(signer, group.id, { url });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      this.logger.info(
        { group: group.uri, actor: signer.uri, reason: error.message },
        'refused a group join',
      );
      if (error.message === MEMBER_MESSAGES.alreadyMember) return;
      await this.send(group, [signer.id], {
        id: `${this.options.publicUrl}/reject/join/${randomUUID()}`,
        type: 'Reject',
        actor: group.uri,
        object: { ...(id ? { id } : {}), type: 'Join', actor: signer.uri, object: group.uri },
        to: [signer.uri],
        cc: [],
      });
    }
  }

  private async receiveLeave({ activity, signer }: InboxContext, members: MemberService): Promise<void> {
    const group = await this.localGroup(idOf(activity.object));
    if (!group) return;
    await this.refusable('leave', () => members.leave(signer, group.id));
  }

  /**
   * Accept or Reject naming a membership by its id: a remote group's answer to a local profile's
   * Join (only from the group's own instance, only for a pending request), or a remote profile's
   * answer to its invitation to a local group. Anything else (a Join we never sent) changes nothing.
   */
  private async receiveAnswer(
    { activity, signer }: InboxContext,
    members: MemberService,
    accepted: boolean,
  ): Promise<void> {
    const id = idOf(activity.object);
    const member = id ? await members.byUrl(id) : null;
    if (!member) return;
    const { group, person } = await this.partiesOf(member);
    if (!group || !person) return;
    if (!group.local && person.local && speaksFor(signer, group)) {
      const role = accepted ? (roleOf(activity.object) ?? 'MEMBER') : 'REJECTED';
      if (member.role === 'NOT_APPROVED')
        await members.recordGroupDecision(group, person, { kind: 'role', role });
    } else if (group.local && member.role === 'INVITED' && member.actorId === signer.id) {
      await this.refusable('invitation answer', () =>
        members.answerInvitationOf(signer, member.id, accepted),
      );
    } else if (group.local && member.role === 'NOT_APPROVED' && member.actorId !== signer.id) {
      // A remote moderator of a local group deciding a request: the member service checks that it moderates.
      await this.refusable('membership decision', () =>
        accepted ? members.approve(signer, member.id) : members.reject(signer, member.id),
      );
    }
  }

  /**
   * An Invite: of a local person to a remote group (only from the group's own instance), or of anyone
   * to a local group by a remote moderator (the member service checks that it may invite).
   */
  private async receiveInvite({ activity, signer }: InboxContext, members: MemberService): Promise<void> {
    const groupUri = idOf(activity.object);
    const targetUri = idOf(activity.target);
    if (!groupUri || !targetUri) return;
    const [group, person] = await Promise.all([
      this.options.actors.findByUri(groupUri),
      this.options.actors.findByUri(targetUri),
    ]);
    if (!group || group.type !== 'Group' || group.suspended) return;
    if (!person || person.type !== 'Person' || person.suspended) return;
    if (group.local) {
      const address = person.local ? person.username : `${person.username}@${person.domain}`;
      await this.refusable('invitation', () => members.invite(signer, group.id, address));
      return;
    }
    if (!person.local || !speaksFor(signer, group)) return;
    const id = typeof activity.id === 'string' && sameOrigin(activity.id, group.uri) ? activity.id : null;
    await members.recordGroupDecision(group, person, {
      kind: 'invited',
      inviterId: signer.id,
      url: id && !(await members.byUrl(id)) ? id : null,
    });
  }

  /**
   * Remove of a membership: of a local group, only as the member service allows the signer (a
   * moderator; an administrator for administrators); of a remote group, from its own instance.
   */
  private async receiveRemove({ activity, signer }: InboxContext, members: MemberService): Promise<void> {
    const id = idOf(activity.object);
    const member = id ? await members.byUrl(id) : null;
    if (!member) return;
    const { group, person } = await this.partiesOf(member);
    if (!group || !person) return;
    if (group.local) {
      await this.refusable('removal', () => members.remove(signer, member.id, true));
    } else if (person.local && speaksFor(signer, group)) {
      await members.recordGroupDecision(group, person, { kind: 'role', role: 'REJECTED' });
    }
  }

  /** Update of a `Member`'s role, with the same rules as Remove. */
  private async receiveUpdate({ activity, signer }: InboxContext, members: MemberService): Promise<void> {
    const id = idOf(activity.object);
    const role = roleOf(activity.object);
    const member = id ? await members.byUrl(id) : null;
    if (!member || !role) return;
    const { group, person } = await this.partiesOf(member);
    if (!group || !person) return;
    if (group.local) {
      await this.refusable('role update', () => members.update(signer, member.id, role));
    } else if (person.local && speaksFor(signer, group) && isMemberRole(member.role)) {
      await members.recordGroupDecision(group, person, { kind: 'role', role });
    }
  }

  // ---- Content negotiation ----------------------------------------------------------------------

  /**
   * `/member/:uuid` as ActivityPub: a membership of a local group, for a request signed by the member
   * itself or by a member of the group (a group's members are its own business). `reader` null: 401.
   */
  async memberDocument(
    uuid: string,
    reader: Actor | null,
  ): Promise<ServedObject | 'unsigned' | 'refused' | null> {
    if (!isUuid(uuid)) return null;
    const [member] = await this.options.sequelize.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.uuid = :uuid`,
      { type: QueryTypes.SELECT, replacements: { uuid } },
    );
    if (!member) return null;
    const { group, person } = await this.partiesOf(member);
    if (!group?.local || !person || group.suspended) return null;
    if (!reader) return 'unsigned';
    const mayRead =
      reader.id === person.id || isMemberRole(await roleInGroup(this.options.sequelize, reader.id, group.id));
    if (!mayRead) return 'refused';
    return { document: { '@context': EVENTS_LD_CONTEXT, ...memberObject(member, person, group) } };
  }

  // ---- Reads ------------------------------------------------------------------------------------

  private async partiesOf(member: MemberRow): Promise<{ group: Actor | null; person: Actor | null }> {
    const found = await this.options.actors.findByIds([member.parentId, member.actorId]);
    const group = found.get(member.parentId) ?? null;
    return {
      group: group?.type === 'Group' ? group : null,
      person: found.get(member.actorId) ?? null,
    };
  }

  private async localGroup(uri: string | null): Promise<Actor | null> {
    const actor = uri ? await this.options.actors.findByUri(uri) : null;
    return actor?.local && actor.type === 'Group' && !actor.suspended ? actor : null;
  }

  /** Runs a member-service call for a remote signer: the rules' refusals are logged, nothing stored. */
  private async refusable(what: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!isRefusal(error)) throw error;
      this.logger.info({ reason: error.message }, `refused a remote ${what}`);
    }
  }

  /** Federation follows a committed write: its failure is logged, never the request's. */
  private safely(what: string, run: () => Promise<void>): Promise<void> {
    return logFailure(this.logger, `federation of a group ${what} failed`, run);
  }
}

/** A membership as the reference's `Member` object: who, of which group, with which role. */
export function memberObject(
  member: Pick<MemberRow, 'url' | 'role'>,
  person: Pick<Actor, 'uri'>,
  group: Pick<Actor, 'uri'>,
): Record<string, unknown> {
  return {
    type: 'Member',
    id: member.url,
    actor: person.uri,
    object: group.uri,
    role: member.role.toLowerCase(),
  };
}

/** The group's own actor, or an actor of the group's instance: they speak for a remote group (ADR 0041). */
function speaksFor(signer: Actor, group: Actor): boolean {
  return signer.id === group.id || sameOrigin(signer.uri, group.uri);
}

/** The role an inline `Member` object gives, when it is one an Update may set. */
function roleOf(object: unknown): MemberRole | null {
  if (typeOf(object) !== 'Member') return null;
  const role = String((object as { role?: unknown }).role ?? '').toUpperCase() as MemberRole;
  return SETTABLE_ROLES.includes(role) ? role : null;
}

function isRefusal(error: unknown): error is Error {
  return error instanceof BadInput || error instanceof NotFound || error instanceof Forbidden;
}
