import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { isActorId } from './actor.store.js';

export interface Follow {
  id: string;
  actorId: string;
  targetActorId: string;
  uri: string | null;
  accepted: boolean;
  /** The follower's choices (Mastodon's `reblogs`, `notify`, `languages`; null: every language). */
  showReblogs: boolean;
  notify: boolean;
  languages: string[] | null;
  createdAt: Date;
}

/** What a follower may choose about a follow; omitted keys keep their stored (or default) value. */
export interface FollowOptions {
  showReblogs?: boolean;
  notify?: boolean;
  /** An empty list or null: every language. */
  languages?: string[] | null;
}

interface FollowFields {
  id: string;
  actorId: string;
  targetActorId: string;
  uri: string | null;
  acceptedAt: Date | null;
  showReblogs: boolean;
  notify: boolean;
  languages: string[] | null;
  createdAt: Date;
}

const COLUMNS = `id, actor_id AS "actorId", target_actor_id AS "targetActorId", uri, accepted_at AS "acceptedAt",
  show_reblogs AS "showReblogs", notify, languages, created_at AS "createdAt"`;

/**
 * Follow relations between actors, local or remote. Accepted follows count in both actors'
 * `followers_count` / `following_count`, pending ones in the target's `follow_requests_count`:
 * triggers on `follows` keep all three (ADR 0005), so no method here touches `actors`.
 */
/**
 * Told of a follow once it counts (accepted) and once an accepted one ends: home feeds follow them.
 * `requested` and `withdrawn`: a new pending request, and a pending one that ended unanswered or was
 * refused (follow-request notifications follow them).
 */
export interface FollowListener {
  accepted(follow: Follow): Promise<void>;
  removed(follow: Follow): Promise<void>;
  requested?(follow: Follow): Promise<void>;
  withdrawn?(follow: Follow): Promise<void>;
}

export class FollowStore {
  private readonly listeners: FollowListener[] = [];

  constructor(private readonly sequelize: Sequelize) {}

  addListener(listener: FollowListener): void {
    this.listeners.push(listener);
  }

  private async tell(change: keyof FollowListener, follow: Follow): Promise<void> {
    for (const listener of this.listeners) await listener[change]?.(follow);
  }

  /**
   * Records that `actorId` follows `targetActorId` (accepted, or pending approval). An existing
   * relation is kept (a repeated Follow may refresh its uri and accept it). Returns the relation.
   */
  async follow(
    actorId: string,
    targetActorId: string,
    options: { uri?: string | null; accepted: boolean } & FollowOptions,
  ): Promise<Follow> {
    const languages =
      options.languages === undefined ? null : options.languages?.length ? options.languages : null;
    let newlyAccepted = false;
    let newlyRequested = false;
    const follow = await this.sequelize.transaction(async (transaction) => {
      // Inserted pending, then accepted by one path (acceptRow): the triggers see one change of state.
      // A repeated follow changes only the options it names ($6: whether languages were named).
      const [saved] = await this.sequelize.query<FollowFields & { inserted: boolean }>(
        `INSERT INTO follows (actor_id, target_actor_id, uri, show_reblogs, notify, languages)
         VALUES ($1, $2, $3, coalesce($4, true), coalesce($5, false), $7)
         ON CONFLICT (actor_id, target_actor_id) DO UPDATE SET uri = coalesce(EXCLUDED.uri, follows.uri),
           show_reblogs = coalesce($4, follows.show_reblogs), notify = coalesce($5, follows.notify),
           languages = CASE WHEN $6 THEN $7 ELSE follows.languages END, updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
        {
          bind: [
            actorId,
            targetActorId,
            options.uri ?? null,
            options.showReblogs ?? null,
            options.notify ?? null,
            options.languages !== undefined,
            languages,
          ],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      const { inserted, ...fields } = saved!;
      let row: FollowFields = fields;
      if (options.accepted && row.acceptedAt === null) {
        const accepted = await this.acceptRow(row.id, transaction);
        newlyAccepted = accepted !== null;
        row = accepted ?? row;
      }
      newlyRequested = inserted && row.acceptedAt === null;
      return toFollow(row);
    });
    if (newlyAccepted) await this.tell('accepted', follow);
    if (newlyRequested) await this.tell('requested', follow);
    return follow;
  }

  /** Accepts a pending follow; a no-op (returning it) when already accepted; null when unknown. */
  async accept(followId: string): Promise<Follow | null> {
    const accepted = await this.acceptRow(followId);
    if (accepted) {
      const follow = toFollow(accepted);
      await this.tell('accepted', follow);
      return follow;
    }
    const existing = await this.findRow('id = $1', [followId]);
    return existing ? toFollow(existing) : null;
  }

  /**
   * Ends the relation (unfollow, reject, undo); returns the relation that existed, if any. Its own
   * statement, never part of a caller's transaction: listeners hear of the removal once it committed.
   */
  async remove(actorId: string, targetActorId: string): Promise<Follow | null> {
    if (!isActorId(actorId) || !isActorId(targetActorId)) return null;
    const rows = await this.sequelize.query<FollowFields>(
      `DELETE FROM follows WHERE actor_id = $1 AND target_actor_id = $2 RETURNING ${COLUMNS}`,
      { bind: [actorId, targetActorId], type: QueryTypes.SELECT },
    );
    const removed = rows[0] ? toFollow(rows[0]) : null;
    if (removed) await this.tell(removed.accepted ? 'removed' : 'withdrawn', removed);
    return removed;
  }

  async find(actorId: string, targetActorId: string): Promise<Follow | null> {
    if (!isActorId(actorId) || !isActorId(targetActorId)) return null;
    const row = await this.findRow('actor_id = $1 AND target_actor_id = $2', [actorId, targetActorId]);
    return row ? toFollow(row) : null;
  }

  async findByUri(uri: string): Promise<Follow | null> {
    const row = await this.findRow('uri = $1', [uri]);
    return row ? toFollow(row) : null;
  }

  /** Inboxes of an actor's accepted remote followers, one per shared inbox. */
  async followerInboxes(actorId: string): Promise<string[]> {
    const rows = await this.sequelize.query<{ inbox: string }>(
      `SELECT DISTINCT coalesce(a.shared_inbox_url, a.inbox_url) AS inbox
         FROM follows f JOIN actors a ON a.id = f.actor_id
        WHERE f.target_actor_id = $1 AND f.accepted_at IS NOT NULL AND a.domain IS NOT NULL
          AND a.suspended_at IS NULL AND coalesce(a.shared_inbox_url, a.inbox_url) IS NOT NULL`,
      { bind: [actorId], type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.inbox);
  }

  private async acceptRow(followId: string, transaction?: Transaction): Promise<FollowFields | null> {
    const rows = await this.sequelize.query<FollowFields>(
      `UPDATE follows SET accepted_at = now(), updated_at = now()
        WHERE id = $1 AND accepted_at IS NULL RETURNING ${COLUMNS}`,
      { bind: [followId], type: QueryTypes.SELECT, transaction },
    );
    return rows[0] ?? null;
  }

  private async findRow(
    where: string,
    bind: unknown[],
    transaction?: Transaction,
  ): Promise<FollowFields | null> {
    const rows = await this.sequelize.query<FollowFields>(`SELECT ${COLUMNS} FROM follows WHERE ${where}`, {
      bind,
      type: QueryTypes.SELECT,
      transaction,
    });
    return rows[0] ?? null;
  }
}

function toFollow(row: FollowFields): Follow {
  return {
    id: String(row.id),
    actorId: String(row.actorId),
    targetActorId: String(row.targetActorId),
    uri: row.uri,
    accepted: row.acceptedAt !== null,
    showReblogs: row.showReblogs,
    notify: row.notify,
    languages: row.languages,
    createdAt: row.createdAt,
  };
}
