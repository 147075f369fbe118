import { NotFound, type JobQueue, type Logger } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import type { Follow, FollowListener } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';
import type { StatusListener } from '../statuses/status.service.js';
import {
  DEFAULT_POLICY,
  GROUPABLE_TYPES,
  type NotificationPolicy,
  type NotificationRow,
  type NotificationSelection,
  type NotificationType,
} from './notification.types.js';

export const RECORD_NOT_FOUND = 'Record not found';
/** Tells the accounts that reblogged an edited status (one job per edit; the reblogs may be many). */
export const NOTIFY_UPDATE_JOB = 'microblog.notifications.update';
/** How long a group of favourites, reblogs or follows stays open (Mastodon groups by the hour). */
const GROUP_BUCKET_SECONDS = 3600;
/** How many notifications one v2 page reads at most to make its groups. */
const GROUP_SCAN_LIMIT = 2000;
/** How many sample accounts a group shows (Mastodon: 8). */
const GROUP_SAMPLES = 8;

export interface NotificationServiceDeps {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  /**
   * The id of the last notification the account has read (its `notifications` marker), for
   * `unread_count`; the markers module provides it. Without it, every notification counts as unread.
   */
  readMarker?: ((accountId: string) => Promise<string | null>) | undefined;
}

const COLUMNS = `n.id::text AS id, n.type, n.account_id::text AS "accountId",
  n.from_account_id::text AS "fromAccountId", n.status_id::text AS "statusId",
  n.group_key AS "groupKey", n.created_at AS "createdAt"`;

/**
 * Whether recipient `r` accepts a notification from actor row `f` (an alias of `actors`): not
 * suspended, not blocked either way, not muted with notifications, not from a domain `r` blocks.
 * The seed: nothing from muted conversations (checked with the status, `conversationMuted`).
 */
function accepts(r: string, f: string): string {
  // Each direction of a block is its own probe of blocks_account_target_key (an OR would scan).
  return `${f}.suspended_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${r} AND b.target_account_id = ${f}.id)
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${f}.id AND b.target_account_id = ${r})
    AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = ${r} AND m.target_account_id = ${f}.id
                      AND m.notifications AND (m.expires_at IS NULL OR m.expires_at > now()))
    AND (${f}.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d
                      WHERE d.account_id = ${r} AND d.domain = lower(${f}.domain)))`;
}

/**
 * Whether recipient `r`'s notification policy (row alias `p`, absent: the defaults) drops what sender
 * `f` causes (Mastodon 4.3): senders `r` does not follow, who do not follow `r`, accounts younger than
 * 30 days, private mentions (status `s` direct) from accounts `r` does not follow. `filter` would
 * hold them as notification requests, which are not made yet: it lets them through.
 */
function dropped(r: string, f: string, p: string, s: string): string {
  const follows = (a: string, b: string) =>
    `EXISTS (SELECT 1 FROM follows x WHERE x.actor_id = ${a} AND x.target_actor_id = ${b} AND x.accepted_at IS NOT NULL)`;
  // Without a policy row every comparison is null: coalesce makes that "not dropped".
  return `coalesce((${p}.for_not_following = 'drop' AND NOT ${follows(r, `${f}.id`)})
        OR (${p}.for_not_followers = 'drop' AND NOT ${follows(`${f}.id`, r)})
        OR (${p}.for_new_accounts = 'drop' AND ${f}.created_at > now() - interval '30 days')
        OR (${p}.for_private_mentions = 'drop' AND NOT ${follows(r, `${f}.id`)}
            AND EXISTS (SELECT 1 FROM statuses ps WHERE ps.id = ${s} AND ps.visibility = 'direct')), false)`;
}

/** Whether recipient `r` muted the conversation of status `s` (an id expression). */
function conversationMuted(r: string, s: string): string {
  return `EXISTS (SELECT 1 FROM statuses cs JOIN conversation_mutes cm
                    ON cm.conversation_id = cs.conversation_id AND cm.account_id = ${r}
                   WHERE cs.id = ${s})`;
}

/**
 * What a read selects from: the notification, its sender and its status (a join probed by primary
 * key row by row, never a scan of statuses).
 */
const SHOWN_FROM = `notifications n JOIN actors fa ON fa.id = n.from_account_id
  LEFT JOIN statuses s ON s.id = n.status_id`;

/** What a read shows: accepted senders, statuses not deleted and not in a muted conversation. */
const SHOWN = `${accepts('n.account_id', 'fa')}
  AND (n.status_id IS NULL OR (s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM conversation_mutes cm
         WHERE cm.account_id = n.account_id AND cm.conversation_id = s.conversation_id)))`;

/** One group of v2 grouped notifications, before hydration. */
export interface NotificationGroupRow {
  groupKey: string;
  type: NotificationType;
  count: number;
  mostRecentId: string;
  pageMinId: string;
  pageMaxId: string;
  latestAt: Date;
  sampleAccountIds: string[];
  statusId: string | null;
  /** The newest notification of the group (what v1 would show). */
  latest: NotificationRow;
}

// A new status's notifications: the status, the accounts it mentions and the followers who asked to
// hear of the author's posts (none for a reblog or a direct status), in one named statement (ADR 0051).
const NEW_STATUS_AUDIENCE = preparedStatement<
  {
    accountId: string;
    reblogOfId: string | null;
    originalAccountId: string | null;
    mentioned: string[];
    subscribers: string[];
  },
  [statusId: string]
>({
  name: 'agora_notifications_new_status',
  text: `SELECT s.account_id::text AS "accountId", s.reblog_of_id::text AS "reblogOfId",
              o.account_id::text AS "originalAccountId",
              ARRAY(SELECT m.account_id::text FROM mentions m WHERE m.status_id = s.id) AS mentioned,
              CASE WHEN s.reblog_of_id IS NULL AND s.visibility <> 'direct'
                   THEN ARRAY(SELECT f.actor_id::text FROM follows f
                               WHERE f.target_actor_id = s.account_id AND f.notify AND f.accepted_at IS NOT NULL)
                   ELSE '{}'::text[] END AS subscribers
         FROM statuses s LEFT JOIN statuses o ON o.id = s.reblog_of_id AND o.deleted_at IS NULL
        WHERE s.id = $1 AND s.deleted_at IS NULL`,
});

/**
 * Notifications of local accounts (issue 15 §5): made from the statuses' and follows' committed
 * changes (mention, status, reblog, favourite, follow, follow_request, update; `poll` through
 * `notifyPoll`), never from blocked, muted (with notifications) or domain-blocked senders nor about a
 * muted conversation, at most once per (recipient, type, sender, status); read, dismissed and cleared
 * by their recipient. Reads apply the same rules, so a later block or mute hides what came before.
 */
export class NotificationService {
  private readonly createdListeners: Array<
    (rows: Array<{ id: string; accountId: string }>) => Promise<void>
  > = [];

  constructor(private readonly deps: NotificationServiceDeps) {}

  /**
   * Told of the notifications `notify` made once they are committed (streaming sends them, push
   * queues them): every process and job finds their rows.
   */
  addCreatedListener(listener: (rows: Array<{ id: string; accountId: string }>) => Promise<void>): void {
    this.createdListeners.push(listener);
  }

  /** What the statuses service tells: new statuses and reblogs, edits, favourites, unreblogs. */
  statusListener(): StatusListener {
    return {
      distributed: (statusId) => this.statusDistributed(statusId),
      edited: async (statusId) => {
        await this.deps.queue.send(NOTIFY_UPDATE_JOB, { statusId });
      },
      favourited: async (accountId, status, on) => {
        if (on) await this.notify('favourite', [status.accountId], accountId, status.id);
        else await this.remove('favourite', status.accountId, accountId, status.id);
      },
      unreblogged: async (accountId, status) => {
        await this.remove('reblog', status.accountId, accountId, status.id);
      },
    };
  }

  /** What the follow store tells: requests, accepted follows, and their ends. */
  followListener(): FollowListener {
    return {
      requested: async (follow: Follow) => {
        await this.notify('follow_request', [follow.targetActorId], follow.actorId, null);
      },
      withdrawn: async (follow: Follow) => {
        await this.remove('follow_request', follow.targetActorId, follow.actorId, null);
      },
      accepted: async (follow: Follow) => {
        // An answered request becomes the follow it asked for, without a second notification.
        const answered = await this.remove('follow_request', follow.targetActorId, follow.actorId, null);
        if (answered === 0) await this.notify('follow', [follow.targetActorId], follow.actorId, null);
      },
      removed: async (follow: Follow) => {
        await this.remove('follow', follow.targetActorId, follow.actorId, null);
      },
    };
  }

  /** The update worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ statusId: string }>(NOTIFY_UPDATE_JOB, async (job) => {
      await this.statusEdited(job.data.statusId);
    });
  }

  /**
   * Notifies local `recipients` of `type` caused by `fromId` (about `statusId`), leaving out the
   * sender itself (except for `poll`), remote accounts, and anyone who would not accept it.
   * Returns how many notifications were made (an existing one is not made again).
   */
  async notify(
    type: NotificationType,
    recipients: readonly string[],
    fromId: string,
    statusId: string | null,
    transaction?: Transaction,
  ): Promise<number> {
    const wanted = [...new Set(recipients)];
    if (wanted.length === 0) return 0;
    const groupKey = GROUPABLE_TYPES.includes(type)
      ? `${type}${statusId === null ? '' : `-${statusId}`}-${Math.floor(Date.now() / 1000 / GROUP_BUCKET_SECONDS)}`
      : null;
    const rows = await this.deps.sequelize.query<{ id: string; accountId: string }>(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, group_key)
       SELECT r.id, fa.id, $3, $4::bigint, $5
         FROM unnest($1::bigint[]) AS r (id)
         JOIN actors ra ON ra.id = r.id AND ra.domain IS NULL AND ra.suspended_at IS NULL
         JOIN actors fa ON fa.id = $2
         LEFT JOIN notification_policies p ON p.account_id = r.id
        WHERE (r.id <> fa.id OR $3 = 'poll') AND ${accepts('r.id', 'fa')}
          AND ($4::bigint IS NULL OR NOT ${conversationMuted('r.id', '$4::bigint')})
          AND ($3 IN ('poll', 'update') OR NOT ${dropped('r.id', 'fa', 'p', '$4::bigint')})
       ON CONFLICT DO NOTHING RETURNING id::text AS id, account_id::text AS "accountId"`,
      {
        bind: [wanted, fromId, type, statusId, groupKey],
        type: QueryTypes.SELECT,
        ...(transaction ? { transaction } : {}),
      },
    );
    if (rows.length > 0) {
      const tell = async () => {
        for (const listener of this.createdListeners) await listener(rows);
      };
      if (transaction) transaction.afterCommit(tell);
      else await tell();
    }
    return rows.length;
  }

  /**
   * A poll has ended: its local voters and its author are told (type `poll`, from the author). The
   * polls module calls this with the voters it knows.
   */
  async notifyPoll(statusId: string, voterIds: readonly string[]): Promise<number> {
    const [status] = await this.deps.sequelize.query<{ accountId: string }>(
      'SELECT account_id::text AS "accountId" FROM statuses WHERE id = $1 AND deleted_at IS NULL',
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    if (!status) return 0;
    return this.notify('poll', [status.accountId, ...voterIds], status.accountId, statusId);
  }

  /** A new status: its local mentions, and followers who asked to be told; a reblog: the original's author. */
  async statusDistributed(statusId: string): Promise<void> {
    // One round trip when nobody is to be notified.
    const [status] = await NEW_STATUS_AUDIENCE.rows(this.deps.sequelize, [statusId]);
    if (!status) return;
    if (status.reblogOfId !== null) {
      if (status.originalAccountId !== null)
        await this.notify('reblog', [status.originalAccountId], status.accountId, status.reblogOfId);
      return;
    }
    await this.notify('mention', status.mentioned, status.accountId, statusId);
    await this.notify('status', status.subscribers, status.accountId, statusId);
  }

  /** An edit: local accounts that reblogged it get a fresh `update`; accounts newly mentioned, a mention. */
  async statusEdited(statusId: string): Promise<void> {
    const { sequelize } = this.deps;
    const [status] = await sequelize.query<{ accountId: string }>(
      'SELECT account_id::text AS "accountId" FROM statuses WHERE id = $1 AND deleted_at IS NULL',
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    if (!status) return;
    await this.notifyMentions(statusId, status.accountId);
    const rebloggers = await sequelize.query<{ id: string }>(
      `SELECT DISTINCT r.account_id::text AS id FROM statuses r
         JOIN actors a ON a.id = r.account_id AND a.domain IS NULL
        WHERE r.reblog_of_id = $1 AND r.deleted_at IS NULL`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    if (rebloggers.length === 0) return;
    const ids = rebloggers.map((row) => row.id);
    await sequelize.transaction(async (transaction) => {
      // The newest edit is the one to tell: an earlier `update` of the same status makes way.
      await sequelize.query(
        `DELETE FROM notifications WHERE type = 'update' AND status_id = $1 AND account_id = ANY($2::bigint[])`,
        { bind: [statusId, ids], transaction },
      );
      await this.notify('update', ids, status.accountId, statusId, transaction);
    });
  }

  private async notifyMentions(statusId: string, authorId: string): Promise<void> {
    const mentioned = await this.deps.sequelize.query<{ id: string }>(
      'SELECT account_id::text AS id FROM mentions WHERE status_id = $1',
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    await this.notify(
      'mention',
      mentioned.map((row) => row.id),
      authorId,
      statusId,
    );
  }

  /** Takes back what an undone action caused (unfavourite, unreblog, unfollow). Returns how many went. */
  async remove(
    type: NotificationType,
    recipientId: string,
    fromId: string,
    statusId: string | null,
  ): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `DELETE FROM notifications WHERE account_id = $1 AND type = $2 AND from_account_id = $3
          AND status_id IS NOT DISTINCT FROM $4::bigint RETURNING 1`,
      { bind: [recipientId, type, fromId, statusId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** A block: what the blocked account caused is gone for good, as Mastodon clears it (unblocking brings nothing back). */
  async forgetSender(accountId: string, senderId: string): Promise<number> {
    const rows = await this.deps.sequelize.query(
      'DELETE FROM notifications WHERE account_id = $1 AND from_account_id = $2 RETURNING 1',
      { bind: [accountId, senderId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** GET /api/v1/notifications: the viewer's notifications, newest first, paged by id. */
  async list(
    viewerId: string,
    selection: NotificationSelection,
    page: PageRequest,
  ): Promise<Page<NotificationRow>> {
    if (selection.fromAccountId === false) return { items: [] };
    const bind: unknown[] = [viewerId];
    const where = this.selectionSql(selection, bind);
    const paging = pageSql('n.id', page, bind);
    const rows = await this.deps.sequelize.query<NotificationRow & { cursor: string }>(
      `SELECT ${COLUMNS}, n.id::text AS cursor FROM ${SHOWN_FROM}
        WHERE n.account_id = $1 AND ${SHOWN}${where}${paging.where}${paging.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    return pageRows(rows.map(withDate), page);
  }

  /** GET /api/v1/notifications/:id: one of the viewer's. Errors: NotFound. */
  async find(viewerId: string, id: string): Promise<NotificationRow> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<NotificationRow>(
      `SELECT ${COLUMNS} FROM ${SHOWN_FROM}
        WHERE n.id = $1 AND n.account_id = $2 AND ${SHOWN}`,
      { bind: [id, viewerId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return withDate(row);
  }

  /** POST /api/v1/notifications/:id/dismiss. Errors: NotFound (not the viewer's). */
  async dismiss(viewerId: string, id: string): Promise<void> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const rows = await this.deps.sequelize.query(
      'DELETE FROM notifications WHERE id = $1 AND account_id = $2 RETURNING 1',
      { bind: [id, viewerId], type: QueryTypes.SELECT },
    );
    if (rows.length === 0) throw new NotFound(RECORD_NOT_FOUND);
  }

  /** POST /api/v2/notifications/:group_key/dismiss: every notification of the group. Errors: NotFound. */
  async dismissGroup(viewerId: string, groupKey: string): Promise<void> {
    const ungrouped = /^ungrouped-(\d+)$/.exec(groupKey);
    if (ungrouped) return this.dismiss(viewerId, ungrouped[1]!);
    const rows = await this.deps.sequelize.query(
      'DELETE FROM notifications WHERE account_id = $1 AND group_key = $2 RETURNING 1',
      { bind: [viewerId, groupKey], type: QueryTypes.SELECT },
    );
    if (rows.length === 0) throw new NotFound(RECORD_NOT_FOUND);
  }

  /** POST /api/v1/notifications/clear: all of the viewer's. */
  async clear(viewerId: string): Promise<void> {
    await this.deps.sequelize.query('DELETE FROM notifications WHERE account_id = $1', { bind: [viewerId] });
  }

  /** GET /api/v1/notifications/unread_count: those after the viewer's read marker, counted up to `limit`. */
  async unreadCount(viewerId: string, selection: NotificationSelection, limit: number): Promise<number> {
    if (selection.fromAccountId === false) return 0;
    const lastRead = (await this.deps.readMarker?.(viewerId)) ?? null;
    const bind: unknown[] = [viewerId, lastRead, limit];
    const where = this.selectionSql(selection, bind);
    const [row] = await this.deps.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM ${SHOWN_FROM}
          WHERE n.account_id = $1 AND ($2::bigint IS NULL OR n.id > $2::bigint) AND ${SHOWN}${where}
          ORDER BY n.id DESC LIMIT $3) x`,
      { bind, type: QueryTypes.SELECT },
    );
    return row?.n ?? 0;
  }

  /**
   * GET /api/v2/notifications: up to `page.limit` groups, newest first. Notifications of the grouped
   * types share a group when they share a `group_key` (same type, status and hour); the others stand
   * alone as `ungrouped-<id>`. Paged by notification id like v1, so `max_id` continues below the
   * oldest notification the page used.
   */
  async grouped(
    viewerId: string,
    selection: NotificationSelection,
    groupedTypes: readonly NotificationType[],
    page: PageRequest,
  ): Promise<Page<NotificationGroupRow>> {
    const scan = await this.list(viewerId, selection, {
      ...page,
      limit: Math.min(page.limit * GROUP_SAMPLES * 2, GROUP_SCAN_LIMIT),
    });
    // With min_id the scan holds the notifications just above it: groups are taken from its oldest end.
    const rows = page.minId ? [...scan.items].reverse() : scan.items;
    const { groups, consumed } = groupNotifications(rows, groupedTypes, page.limit);
    const used = rows.slice(0, consumed);
    if (used.length === 0) return { items: [] };
    const ids = used.map((row) => row.id).sort(compareIds);
    return {
      items: groups,
      newest: ids.at(-1)!,
      oldest: ids[0]!,
      // A next page exists when the groups filled the page or the scan stopped short of the end.
      fetched: groups.length >= page.limit || rows.length > consumed ? page.limit : groups.length,
    };
  }

  /**
   * GET /api/v2/notifications/:group_key: the group's notifications (newest first, at most the scan
   * limit), grouped as the list groups them. Errors: NotFound.
   */
  async group(viewerId: string, groupKey: string): Promise<NotificationGroupRow> {
    const ungrouped = /^ungrouped-(\d+)$/.exec(groupKey);
    let rows: NotificationRow[];
    if (ungrouped) {
      rows = [await this.find(viewerId, ungrouped[1]!)];
    } else {
      rows = (
        await this.deps.sequelize.query<NotificationRow>(
          `SELECT ${COLUMNS} FROM ${SHOWN_FROM}
            WHERE n.account_id = $1 AND n.group_key = $2 AND ${SHOWN}
            ORDER BY n.id DESC LIMIT ${GROUP_SCAN_LIMIT}`,
          { bind: [viewerId, groupKey], type: QueryTypes.SELECT },
        )
      ).map(withDate);
    }
    const [group] = groupNotifications(rows, GROUPABLE_TYPES, 1).groups;
    if (!group) throw new NotFound(RECORD_NOT_FOUND);
    return group;
  }

  /** GET /api/v2/notifications/:group_key/accounts: every sender of the group, newest first. Errors: NotFound. */
  async groupSenders(viewerId: string, groupKey: string): Promise<string[]> {
    const group = await this.group(viewerId, groupKey);
    if (group.groupKey.startsWith('ungrouped-')) return [group.latest.fromAccountId];
    const rows = await this.deps.sequelize.query<{ id: string }>(
      `SELECT n.from_account_id::text AS id FROM ${SHOWN_FROM}
        WHERE n.account_id = $1 AND n.group_key = $2 AND ${SHOWN}
        GROUP BY n.from_account_id ORDER BY max(n.id) DESC LIMIT ${GROUP_SCAN_LIMIT}`,
      { bind: [viewerId, groupKey], type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.id);
  }

  /** GET /api/v2/notifications/policy: the viewer's, or the defaults. */
  async policy(viewerId: string): Promise<NotificationPolicy> {
    const [row] = await this.deps.sequelize.query<NotificationPolicy>(
      `SELECT for_not_following AS "forNotFollowing", for_not_followers AS "forNotFollowers",
              for_new_accounts AS "forNewAccounts", for_private_mentions AS "forPrivateMentions",
              for_limited_accounts AS "forLimitedAccounts"
         FROM notification_policies WHERE account_id = $1`,
      { bind: [viewerId], type: QueryTypes.SELECT },
    );
    return row ?? DEFAULT_POLICY;
  }

  /** PATCH /api/v2/notifications/policy: changes the values named, keeps the others. */
  async updatePolicy(viewerId: string, patch: Partial<NotificationPolicy>): Promise<NotificationPolicy> {
    const next = { ...(await this.policy(viewerId)), ...patch };
    await this.deps.sequelize.query(
      `INSERT INTO notification_policies (account_id, for_not_following, for_not_followers, for_new_accounts,
                                          for_private_mentions, for_limited_accounts)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id) DO UPDATE SET for_not_following = EXCLUDED.for_not_following,
         for_not_followers = EXCLUDED.for_not_followers, for_new_accounts = EXCLUDED.for_new_accounts,
         for_private_mentions = EXCLUDED.for_private_mentions,
         for_limited_accounts = EXCLUDED.for_limited_accounts, updated_at = now()`,
      {
        bind: [
          viewerId,
          next.forNotFollowing,
          next.forNotFollowers,
          next.forNewAccounts,
          next.forPrivateMentions,
          next.forLimitedAccounts,
        ],
      },
    );
    return next;
  }

  /** The conditions of `types[]`, `exclude_types[]` and `account_id`, their values appended to `bind`. */
  private selectionSql(selection: NotificationSelection, bind: unknown[]): string {
    let sql = '';
    if (selection.types !== null) {
      bind.push(selection.types);
      sql += ` AND n.type = ANY($${bind.length}::text[])`;
    }
    if (selection.excludeTypes.length > 0) {
      bind.push(selection.excludeTypes);
      sql += ` AND n.type <> ALL($${bind.length}::text[])`;
    }
    if (typeof selection.fromAccountId === 'string') {
      bind.push(selection.fromAccountId);
      sql += ` AND n.from_account_id = $${bind.length}::bigint`;
    }
    return sql;
  }
}

/**
 * Groups notifications in the order given (newest first, or oldest first after a min_id): those of a
 * grouped type sharing a `group_key` make one group, the others stand alone. Stops before a group
 * beyond `limit`; `consumed` says how many rows the groups used. Groups come newest first.
 */
export function groupNotifications(
  rows: readonly NotificationRow[],
  groupedTypes: readonly NotificationType[],
  limit: number,
): { groups: NotificationGroupRow[]; consumed: number } {
  const groups = new Map<string, NotificationGroupRow>();
  let consumed = 0;
  for (const row of rows) {
    const key =
      row.groupKey !== null && groupedTypes.includes(row.type) ? row.groupKey : `ungrouped-${row.id}`;
    let group = groups.get(key);
    if (!group) {
      if (groups.size >= limit) break;
      group = {
        groupKey: key,
        type: row.type,
        count: 0,
        mostRecentId: row.id,
        pageMinId: row.id,
        pageMaxId: row.id,
        latestAt: row.createdAt,
        sampleAccountIds: [],
        statusId: row.statusId,
        latest: row,
      };
      groups.set(key, group);
    }
    consumed += 1;
    group.count += 1;
    if (compareIds(row.id, group.pageMinId) < 0) group.pageMinId = row.id;
    if (compareIds(row.id, group.pageMaxId) > 0) {
      group.pageMaxId = row.id;
      group.mostRecentId = row.id;
      group.latestAt = row.createdAt;
      group.latest = row;
    }
  }
  // Samples: the most recent distinct senders first.
  const bySender = new Map<string, NotificationRow[]>();
  for (const row of rows.slice(0, consumed)) {
    const key =
      row.groupKey !== null && groupedTypes.includes(row.type) ? row.groupKey : `ungrouped-${row.id}`;
    const list = bySender.get(key);
    if (list) list.push(row);
    else bySender.set(key, [row]);
  }
  const result: NotificationGroupRow[] = [];
  for (const group of groups.values()) {
    const members = [...(bySender.get(group.groupKey) ?? [])].sort((a, b) => compareIds(b.id, a.id));
    const samples: string[] = [];
    for (const member of members) {
      if (samples.length >= GROUP_SAMPLES) break;
      if (!samples.includes(member.fromAccountId)) samples.push(member.fromAccountId);
    }
    result.push({ ...group, sampleAccountIds: samples });
  }
  result.sort((a, b) => compareIds(b.mostRecentId, a.mostRecentId));
  return { groups: result, consumed };
}

function withDate<T extends NotificationRow>(row: T): T {
  return { ...row, createdAt: new Date(row.createdAt) };
}

function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
