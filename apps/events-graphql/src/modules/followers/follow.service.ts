import { isRowId } from '@agora/db';
import { Forbidden, NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import type { Actor, ActorStore, Federation } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { GroupService } from '../groups/group.service.js';
import { roleInGroup } from '../members/member-roles.js';
import { isModeratorRole } from '../members/member-row.js';
import { FOLLOWER_COLUMNS, type FollowerRow } from './follower-row.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const FOLLOW_MESSAGES = {
  alreadyFollowing: 'You are already following this group',
  notFollowing: (name: string) => `Could not unfollow actor: you are not following ${name}`,
  followNotFound: 'Follow not found',
  notYours: 'Follow does not match your account',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;

export interface FollowServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  /** Finds the group a follow is of (not suspended). */
  groups: Pick<GroupService, 'byId'>;
  /** Follows are the one actor model's (`@agora/federation`): its store and its Follow/Accept/Reject. */
  federation: Federation;
}

/** Following groups (issue 14 §3, behaviour 25): follows of the one actor model, with the reference's rules. */
export class FollowService {
  constructor(private readonly options: FollowServiceOptions) {}

  /** The acting profile follows a group: accepted at once unless it approves followers by hand. */
  async follow(actor: Actor, groupId: string, notify: boolean): Promise<FollowerRow> {
    const group = await this.options.groups.byId(groupId, false);
    if (await this.options.federation.follows.find(actor.id, group.id)) {
      throw new Forbidden(FOLLOW_MESSAGES.alreadyFollowing, REFUSAL);
    }
    const follow = await this.options.federation.follow(actor.id, group.uri, { notify });
    return (await this.byId(follow.id))!;
  }

  /** The acting profile stops following a group; the answer is the follow that ended. */
  async unfollow(actor: Actor, groupId: string): Promise<FollowerRow> {
    const group = await this.options.groups.byId(groupId, false);
    const existing = await this.options.federation.follows.find(actor.id, group.id);
    if (!existing) throw new NotFound(FOLLOW_MESSAGES.notFollowing(group.username), REFUSAL);
    const row = (await this.byId(existing.id))!;
    await this.options.federation.unfollow(actor.id, group.id);
    return row;
  }

  /** Changes `notify` of one of the user's own follows. */
  async update(user: SessionUser, followId: string, notify: boolean): Promise<FollowerRow> {
    const row = await this.existing(followId);
    const follower = await this.options.actors.findById(row.actorId);
    if (!follower || follower.userId !== user.id) throw new Forbidden(FOLLOW_MESSAGES.notYours, REFUSAL);
    await this.options.federation.follows.follow(row.actorId, row.targetActorId, {
      accepted: row.approved,
      notify,
    });
    return (await this.byId(row.id))!;
  }

  /** A moderator of the followed group approves a follower, or refuses it (the follow goes). */
  async decide(actor: Actor, followId: string, approved: boolean): Promise<FollowerRow> {
    const row = await this.existing(followId);
    const target = await this.options.actors.findById(row.targetActorId);
    const role =
      target?.type === 'Group' ? await roleInGroup(this.options.sequelize, actor.id, target.id) : null;
    if (!isModeratorRole(role)) throw new Forbidden();
    if (approved) {
      await this.options.federation.acceptFollow(row.targetActorId, row.actorId);
      return (await this.byId(row.id))!;
    }
    await this.options.federation.rejectFollow(row.targetActorId, row.actorId);
    return { ...row, approved: false };
  }

  private async existing(followId: string): Promise<FollowerRow> {
    const row = isRowId(followId) ? await this.byId(followId) : null;
    if (!row) throw new NotFound(FOLLOW_MESSAGES.followNotFound, REFUSAL);
    return row;
  }

  private async byId(id: string): Promise<FollowerRow | null> {
    const [row] = await this.options.sequelize.query<FollowerRow>(
      `SELECT ${FOLLOWER_COLUMNS} FROM follows f WHERE f.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }
}
