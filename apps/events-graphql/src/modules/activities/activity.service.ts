import type { Logger } from '@agora/core';
import type { Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { EventRow } from '../events/event-row.js';
import type { MemberRole, MemberRow } from '../members/member-row.js';
import {
  ACTIVITY_COLUMNS,
  type ActivityKind,
  type ActivityObjectType,
  type ActivityRow,
} from './activity-row.js';

/** The reference's member subjects (its activity renderer names each). */
export type MemberActivitySubject =
  | 'member_request'
  | 'member_joined'
  | 'member_invited'
  | 'member_accepted_invitation'
  | 'member_rejected_invitation'
  | 'member_approved'
  | 'member_rejected'
  | 'member_updated'
  | 'member_removed'
  | 'member_quit';

/** What the members module records (issue 14 §8); wired in the composition root. */
export interface MemberActivityRecorder {
  member(
    subject: MemberActivitySubject,
    member: MemberRow,
    authorId: string,
    transaction: Transaction,
    oldRole?: MemberRole,
  ): Promise<void>;
}

/** What the groups module records: its creation and its changes (with the names of what changed). */
export interface GroupActivityRecorder {
  group(
    subject: 'group_created' | 'group_updated',
    group: Actor,
    authorId: string,
    transaction: Transaction,
    update?: { oldName: string; changed: string[] },
  ): Promise<void>;
}

/** One action to record in a group's stream. */
export interface NewActivity {
  type: ActivityKind;
  subject: string;
  subjectParams: Record<string, string | null | undefined>;
  groupId: string;
  authorId: string | null;
  objectType: ActivityObjectType | null;
  objectId: string | null;
}

/** `ActivityAuthor`: SELF keeps the viewer's own actions, BY the others'. */
export type AuthorFilter = { self: string } | { by: string } | null;

export interface ActivityPageQuery {
  groupId: string;
  type: ActivityKind | null;
  author: AuthorFilter;
  page: number;
  limit: number;
}

/**
 * The group activity stream (issue 14 §8): the modules that change a group's life (members, posts,
 * discussions, group events, the group itself) record each action here, in the transaction of the
 * change when they have one, so an action that rolls back leaves no entry.
 */
export class ActivityService implements MemberActivityRecorder, GroupActivityRecorder {
  constructor(private readonly options: { sequelize: Sequelize; logger: Logger }) {}

  /** A membership change; the member's names are read in the same transaction. */
  async member(
    subject: MemberActivitySubject,
    member: MemberRow,
    authorId: string,
    transaction: Transaction,
    oldRole?: MemberRole,
  ): Promise<void> {
    const [person] = await this.options.sequelize.query<{
      username: string;
      domain: string | null;
      name: string;
    }>('SELECT username, domain, display_name AS name FROM actors WHERE id = :id', {
      type: QueryTypes.SELECT,
      transaction,
      replacements: { id: member.actorId },
    });
    await this.record(
      {
        type: 'MEMBER',
        subject,
        subjectParams: {
          member_role: member.role,
          member_actor_federated_username: person ? federated(person) : undefined,
          member_actor_name: person?.name || undefined,
          old_role: oldRole,
        },
        groupId: member.parentId,
        authorId,
        objectType: subject === 'member_removed' ? null : 'member',
        objectId: subject === 'member_removed' ? null : member.id,
      },
      transaction,
    );
  }

  async group(
    subject: 'group_created' | 'group_updated',
    group: Actor,
    authorId: string,
    transaction: Transaction,
    update?: { oldName: string; changed: string[] },
  ): Promise<void> {
    const renamed = update?.changed.includes('name');
    await this.record(
      {
        type: 'GROUP',
        subject,
        subjectParams: {
          group_preferred_username: group.username,
          group_name: group.displayName,
          group_domain: group.domain ?? undefined,
          group_federated_username: federated({ username: group.username, domain: group.domain }),
          group_changes: update ? update.changed.join(',') : undefined,
          old_group_name: renamed ? update!.oldName : undefined,
        },
        groupId: group.id,
        authorId,
        objectType: 'group',
        objectId: group.id,
      },
      transaction,
    );
  }

  /**
   * An event of a group, once its change committed (the events module's after-commit hooks):
   * `event_created` when it becomes visible, `event_updated`, `event_deleted`. Events of no group
   * have no stream.
   */
  async event(subject: 'event_created' | 'event_updated' | 'event_deleted', event: EventRow): Promise<void> {
    if (event.attributedToId === null) return;
    await this.recordQuietly({
      type: 'EVENT',
      subject,
      subjectParams: { event_uuid: event.uuid, event_title: event.title },
      groupId: event.attributedToId,
      authorId: event.organizerActorId,
      objectType: subject === 'event_deleted' ? null : 'event',
      objectId: subject === 'event_deleted' ? null : event.id,
    });
  }

  async record(entry: NewActivity, transaction?: Transaction): Promise<void> {
    const params = Object.fromEntries(
      Object.entries(entry.subjectParams).filter(
        (pair): pair is [string, string] => typeof pair[1] === 'string',
      ),
    );
    await this.options.sequelize.query(
      `INSERT INTO activities (type, subject, subject_params, group_id, author_id, object_type, object_id)
       VALUES (:type, :subject, :params::jsonb, :groupId, :authorId, :objectType, :objectId)`,
      {
        ...(transaction ? { transaction } : {}),
        replacements: {
          type: entry.type,
          subject: entry.subject,
          params: JSON.stringify(params),
          groupId: entry.groupId,
          authorId: entry.authorId,
          objectType: entry.objectType,
          objectId: entry.objectId,
        },
      },
    );
  }

  /** Records after a change committed elsewhere: a failure is logged, never the caller's failure. */
  async recordQuietly(entry: NewActivity): Promise<void> {
    try {
      await this.record(entry);
    } catch (err) {
      this.options.logger.error({ err, subject: entry.subject }, 'could not record a group activity');
    }
  }

  /** One page of a group's stream, newest first, with the total under the same filters. */
  async page(query: ActivityPageQuery): Promise<{ elements: ActivityRow[]; total: number }> {
    const where = ['a.group_id = :groupId'];
    if (query.type) where.push('a.type = :type');
    const author = query.author;
    if (author && 'self' in author) where.push('a.author_id = :authorId');
    if (author && 'by' in author) where.push('a.author_id IS DISTINCT FROM :authorId');
    const replacements = {
      groupId: query.groupId,
      type: query.type,
      authorId: author ? ('self' in author ? author.self : author.by) : null,
      limit: query.limit,
      offset: (Math.max(query.page, 1) - 1) * query.limit,
    };
    const [elements, [count]] = await Promise.all([
      this.options.sequelize.query<ActivityRow>(
        `SELECT ${ACTIVITY_COLUMNS} FROM activities a WHERE ${where.join(' AND ')}
          ORDER BY a.inserted_at DESC, a.id DESC LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.options.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM activities a WHERE ${where.join(' AND ')}`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    return { elements, total: count?.total ?? 0 };
  }
}

/** `name` for local actors, `name@domain` for remote ones (the reference's federated username). */
function federated(actor: { username: string; domain: string | null }): string {
  return actor.domain ? `${actor.username}@${actor.domain}` : actor.username;
}
