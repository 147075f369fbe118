import { BadInput, Forbidden, NotFound } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import { parseAcct, type Actor, type ActorStore, type Federation } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';
import {
  NOT_ALLOWED,
  RECORD_NOT_FOUND,
  type AccountService,
  type AccountView,
} from '../accounts/account.service.js';
import type { FollowChoices, MuteChoices, Relationship } from './relationship.types.js';

/** Mastodon's refusal of a follow of oneself (4.3.2, `accounts.self_follow_error`). */
export const SELF_FOLLOW_ERROR = 'Following your own account is not allowed';

export interface RelationshipServiceDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
  accounts: AccountService;
  /** Told once a local account has blocked another (notifications forget what the blocked one caused). */
  onBlock?: ((accountId: string, targetId: string) => Promise<void>) | undefined;
}

/** A page of accounts; `oldest`/`newest` are the internal cursors the Link header names. */
export type AccountPage = Page<AccountView>;

/**
 * What a local account decides about others: follows (and requests to follow it), blocks, mutes,
 * domain blocks; and the lists and relationships that show them. Follows live in the federation
 * package (`follows`), which also tells remote accounts (Follow, Undo, Accept, Reject, Block).
 */
export class RelationshipService {
  constructor(private readonly deps: RelationshipServiceDeps) {
    // A remote Follow of someone who blocks the follower (or its domain) is refused with Reject.
    deps.federation.addFollowPolicy(
      async (follower, target) => !(await this.blocksEither(target.id, follower)),
    );
    // A remote Block is recorded, so the local account sees `blocked_by` and cannot follow back.
    deps.federation.addBlockListener({
      blocked: async (blocker, target, uri) => {
        await deps.sequelize.query(
          `INSERT INTO blocks (account_id, target_account_id, uri) VALUES ($1, $2, $3)
           ON CONFLICT (account_id, target_account_id) DO UPDATE SET uri = EXCLUDED.uri`,
          { bind: [blocker.id, target.id, uri] },
        );
      },
      unblocked: async (blocker, target) => {
        await deps.sequelize.query('DELETE FROM blocks WHERE account_id = $1 AND target_account_id = $2', {
          bind: [blocker.id, target.id],
        });
      },
    });
  }

  /** GET /api/v1/accounts/relationships: in the order asked, unknown and repeated ids left out. */
  async relationships(userId: string, ids: readonly string[]): Promise<Relationship[]> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const wanted = [...new Set(ids.filter((id) => isRowId(id)))];
    if (wanted.length === 0) return [];
    const rows = await RELATIONSHIPS_STATEMENT.rows(this.deps.sequelize, [viewer.id, wanted]);
    return rows.map(toRelationship);
  }

  /**
   * GET /api/v1/accounts/familiar_followers (3.5): for each account asked, in order, the accounts the
   * viewer follows that follow it (at most 5 each, suspended ones left out).
   */
  async familiarFollowers(
    userId: string,
    ids: readonly string[],
  ): Promise<Array<{ id: string; accounts: AccountView[] }>> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const wanted = [...new Set(ids.filter((id) => isRowId(id)))];
    if (wanted.length === 0) return [];
    const rows = await this.deps.sequelize.query<{ id: string; followerIds: string[] }>(
      `SELECT wanted.id::text AS id,
              coalesce((SELECT array_agg(x.actor_id::text) FROM (
                 SELECT theirs.actor_id FROM follows theirs
                   JOIN follows mine ON mine.actor_id = $1 AND mine.target_actor_id = theirs.actor_id
                                    AND mine.accepted_at IS NOT NULL
                   JOIN actors a ON a.id = theirs.actor_id AND a.suspended_at IS NULL
                  WHERE theirs.target_actor_id = wanted.id AND theirs.accepted_at IS NOT NULL
                  ORDER BY theirs.id DESC LIMIT 5) x), '{}') AS "followerIds"
         FROM unnest($2::bigint[]) WITH ORDINALITY AS wanted (id, position)
         JOIN actors t ON t.id = wanted.id
        ORDER BY wanted.position`,
      { bind: [viewer.id, wanted], type: QueryTypes.SELECT },
    );
    const actors = await this.deps.actors.findByIds(rows.flatMap((row) => row.followerIds));
    return Promise.all(
      rows.map(async (row) => ({
        id: row.id,
        accounts: await this.deps.accounts.views(
          row.followerIds.map((id) => actors.get(id)).filter((actor) => actor !== undefined),
        ),
      })),
    );
  }

  /** The viewer's relationship with one account (what every write answers). */
  async relationshipOf(viewerId: string, targetId: string): Promise<Relationship> {
    const [row] = await RELATIONSHIPS_STATEMENT.rows(this.deps.sequelize, [viewerId, [targetId]]);
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return toRelationship(row);
  }

  /**
   * POST /api/v1/accounts/:id/follow: follows at once, or asks (locked or remote account); again on a
   * followed account, changes the choices. Errors: NotFound, Forbidden (self, blocks either way,
   * the account's domain blocked by the viewer).
   */
  async follow(userId: string, targetId: string, choices: FollowChoices): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    if (target.id === viewer.id) throw new Forbidden(SELF_FOLLOW_ERROR);
    if (await this.blocksEither(viewer.id, target)) throw new Forbidden(NOT_ALLOWED);
    await this.deps.federation.follow(viewer.id, target.uri, {
      ...(choices.reblogs !== undefined ? { showReblogs: choices.reblogs } : {}),
      ...(choices.notify !== undefined ? { notify: choices.notify } : {}),
      ...(choices.languages !== undefined ? { languages: choices.languages } : {}),
    });
    return this.relationshipOf(viewer.id, target.id);
  }

  /** POST /api/v1/accounts/:id/unfollow (a pending request too). Errors: NotFound. */
  async unfollow(userId: string, targetId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    await this.deps.federation.unfollow(viewer.id, target.id);
    return this.relationshipOf(viewer.id, target.id);
  }

  /** POST /api/v1/follow_requests/:account_id/authorize. Errors: NotFound (no such request). */
  async authorize(userId: string, followerId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const follower = await this.target(followerId);
    const pending = await this.deps.federation.follows.find(follower.id, viewer.id);
    if (!pending || pending.accepted) throw new NotFound(RECORD_NOT_FOUND);
    await this.deps.federation.acceptFollow(viewer.id, follower.id);
    return this.relationshipOf(viewer.id, follower.id);
  }

  /** POST /api/v1/follow_requests/:account_id/reject. Errors: NotFound (no such request). */
  async reject(userId: string, followerId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const follower = await this.target(followerId);
    const pending = await this.deps.federation.follows.find(follower.id, viewer.id);
    if (!pending || pending.accepted) throw new NotFound(RECORD_NOT_FOUND);
    await this.deps.federation.rejectFollow(viewer.id, follower.id);
    return this.relationshipOf(viewer.id, follower.id);
  }

  /**
   * POST /api/v1/accounts/:id/remove_from_followers (3.5): ends their follow of the viewer (a remote
   * follower is told with Reject). Errors: NotFound.
   */
  async removeFromFollowers(userId: string, followerId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const follower = await this.target(followerId);
    const follow = await this.deps.federation.follows.find(follower.id, viewer.id);
    if (follow?.accepted) await this.deps.federation.rejectFollow(viewer.id, follower.id);
    return this.relationshipOf(viewer.id, follower.id);
  }

  /** POST /api/v1/accounts/:id/block: also ends follows both ways (seed: "block removes follow"). */
  async block(userId: string, targetId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    if (target.id === viewer.id) throw new Forbidden(NOT_ALLOWED);
    await this.deps.sequelize.query(
      `INSERT INTO blocks (account_id, target_account_id) VALUES ($1, $2)
       ON CONFLICT (account_id, target_account_id) DO NOTHING`,
      { bind: [viewer.id, target.id] },
    );
    await this.deps.federation.block(viewer.id, target.id);
    await this.deps.onBlock?.(viewer.id, target.id);
    return this.relationshipOf(viewer.id, target.id);
  }

  /** POST /api/v1/accounts/:id/unblock. Errors: NotFound. */
  async unblock(userId: string, targetId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    const removed = await this.deps.sequelize.query<{ id: string }>(
      'DELETE FROM blocks WHERE account_id = $1 AND target_account_id = $2 RETURNING id',
      { bind: [viewer.id, target.id], type: QueryTypes.SELECT },
    );
    if (removed.length > 0) await this.deps.federation.unblock(viewer.id, target.id);
    return this.relationshipOf(viewer.id, target.id);
  }

  /** POST /api/v1/accounts/:id/mute; again on a muted account, replaces its choices. Errors: NotFound. */
  async mute(userId: string, targetId: string, choices: MuteChoices): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    if (target.id === viewer.id) throw new Forbidden(NOT_ALLOWED);
    await this.deps.sequelize.query(
      `INSERT INTO mutes (account_id, target_account_id, notifications, expires_at)
       VALUES ($1, $2, $3, CASE WHEN $4::integer > 0 THEN now() + make_interval(secs => $4::integer) END)
       ON CONFLICT (account_id, target_account_id) DO UPDATE
         SET notifications = EXCLUDED.notifications, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      { bind: [viewer.id, target.id, choices.notifications, choices.duration] },
    );
    return this.relationshipOf(viewer.id, target.id);
  }

  /** POST /api/v1/accounts/:id/unmute. Errors: NotFound. */
  async unmute(userId: string, targetId: string): Promise<Relationship> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const target = await this.target(targetId);
    await this.deps.sequelize.query('DELETE FROM mutes WHERE account_id = $1 AND target_account_id = $2', {
      bind: [viewer.id, target.id],
    });
    return this.relationshipOf(viewer.id, target.id);
  }

  /**
   * GET /api/v1/accounts/:id/followers and /following (public). Empty when the owner hides them from
   * others, or when the account blocks the viewer. Errors: NotFound.
   */
  async followList(
    direction: 'followers' | 'following',
    accountId: string,
    page: PageRequest,
    viewerUserId: string | null,
  ): Promise<AccountPage> {
    const owner = await this.deps.accounts.findById(accountId);
    const viewer =
      viewerUserId === null ? null : await this.deps.accounts.findByUser(viewerUserId).catch(() => null);
    const isOwner = viewer?.actor.id === owner.actor.id;
    if (!isOwner && owner.hideCollections === true) return { items: [] };
    if (viewer && !isOwner && (await this.blocks(owner.actor.id, viewer.actor.id))) return { items: [] };
    const [mine, theirs] =
      direction === 'followers' ? ['target_actor_id', 'actor_id'] : ['actor_id', 'target_actor_id'];
    return this.accountPage(
      `SELECT f.id::text AS cursor, f.${theirs}::text AS "accountId" FROM follows f
        WHERE f.${mine} = $1 AND f.accepted_at IS NOT NULL`,
      'f.id',
      [owner.actor.id],
      page,
    );
  }

  /** GET /api/v1/follow_requests: who asks to follow the viewer, newest first. */
  async followRequests(userId: string, page: PageRequest): Promise<AccountPage> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    return this.accountPage(
      `SELECT f.id::text AS cursor, f.actor_id::text AS "accountId" FROM follows f
        WHERE f.target_actor_id = $1 AND f.accepted_at IS NULL`,
      'f.id',
      [viewer.id],
      page,
    );
  }

  /** GET /api/v1/blocks. */
  async blockList(userId: string, page: PageRequest): Promise<AccountPage> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    return this.accountPage(
      'SELECT b.id::text AS cursor, b.target_account_id::text AS "accountId" FROM blocks b WHERE b.account_id = $1',
      'b.id',
      [viewer.id],
      page,
    );
  }

  /** GET /api/v1/mutes: the accounts with when each mute ends (MutedAccount `mute_expires_at`). */
  async muteList(
    userId: string,
    page: PageRequest,
  ): Promise<Page<AccountView & { muteExpiresAt: Date | null }>> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const listed = await this.accountPage<{ expiresAt: Date | null }>(
      `SELECT m.id::text AS cursor, m.target_account_id::text AS "accountId", m.expires_at AS "expiresAt"
         FROM mutes m WHERE m.account_id = $1 AND (m.expires_at IS NULL OR m.expires_at > now())`,
      'm.id',
      [viewer.id],
      page,
    );
    return { ...listed, items: listed.items.map((view) => ({ ...view, muteExpiresAt: view.row.expiresAt })) };
  }

  /** GET /api/v1/domain_blocks: the viewer's blocked domains, newest first. */
  async domainBlockList(userId: string, page: PageRequest): Promise<Page<string>> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const bind: unknown[] = [viewer.id];
    const { where, tail } = pageSql('id', page, bind);
    const rows = await this.deps.sequelize.query<{ cursor: string; domain: string }>(
      `SELECT id::text AS cursor, domain FROM account_domain_blocks WHERE account_id = $1${where}${tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    const paged = pageRows(rows, page);
    return { ...paged, items: paged.items.map((row) => row.domain) };
  }

  /**
   * POST /api/v1/domain_blocks: hides the domain's accounts from the viewer, and ends the viewer's
   * follows of them and theirs of the viewer (as Mastodon). Errors: BadInput (no domain, or ours).
   */
  async blockDomain(userId: string, domain: string | undefined): Promise<void> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    const normalized = this.domainParam(domain);
    await this.deps.sequelize.query(
      `INSERT INTO account_domain_blocks (account_id, domain) VALUES ($1, $2)
       ON CONFLICT (account_id, domain) DO NOTHING`,
      { bind: [viewer.id, normalized] },
    );
    const related = await this.deps.sequelize.query<{ actorId: string; targetId: string }>(
      `SELECT f.actor_id::text AS "actorId", f.target_actor_id::text AS "targetId"
         FROM follows f JOIN actors a ON a.id = CASE WHEN f.actor_id = $1 THEN f.target_actor_id ELSE f.actor_id END
        WHERE (f.actor_id = $1 OR f.target_actor_id = $1) AND lower(a.domain) = $2`,
      { bind: [viewer.id, normalized], type: QueryTypes.SELECT },
    );
    for (const follow of related) {
      if (follow.actorId === viewer.id) await this.deps.federation.unfollow(viewer.id, follow.targetId);
      else await this.deps.federation.rejectFollow(viewer.id, follow.actorId);
    }
  }

  /** DELETE /api/v1/domain_blocks. Errors: BadInput (no domain). */
  async unblockDomain(userId: string, domain: string | undefined): Promise<void> {
    const viewer = await this.deps.accounts.activeAccount(userId);
    await this.deps.sequelize.query(
      'DELETE FROM account_domain_blocks WHERE account_id = $1 AND domain = $2',
      {
        bind: [viewer.id, this.domainParam(domain)],
      },
    );
  }

  /**
   * GET /api/v1/accounts/search: accounts whose name or display name starts with `q` (exact names
   * first, local before remote), or the one account `user@domain` names, fetched through WebFinger
   * when `resolve` is set. `following`: only accounts the viewer follows. Accounts the viewer blocks
   * or is blocked by are left out. Without a viewer (the public v2 search): no resolve, no `following`.
   */
  async search(
    userId: string | null,
    query: { q: string; limit: number; offset: number; resolve: boolean; following: boolean },
  ): Promise<AccountView[]> {
    const viewer = userId === null ? null : await this.deps.accounts.activeAccount(userId);
    const term = query.q.replaceAll('\u0000', '').trim().replace(/^@/, '');
    if (term === '') return [];
    const address = /^([^@\s]+)@([^@\s]+)$/.exec(term);
    if (address) {
      if (query.offset > 0) return [];
      const [, username, host] = address as unknown as [string, string, string];
      const local = host.toLowerCase() === this.deps.accounts.localDomain;
      let actor = await this.deps.actors.findByUsername(username, local ? null : host.toLowerCase());
      if (!actor && !local && query.resolve && viewer) {
        actor = await this.deps.federation.resolveAccount(term).catch((error: unknown) => {
          if (error instanceof NotFound || error instanceof BadInput) return null;
          throw error;
        });
      }
      if (!actor || actor.suspended || (viewer && (await this.blocksEither(viewer.id, actor)))) return [];
      if (
        query.following &&
        !(viewer && (await this.deps.federation.follows.find(viewer.id, actor.id))?.accepted)
      )
        return [];
      return this.deps.accounts.views([actor]);
    }
    const prefix = `${escapeLike(term.toLowerCase())}%`;
    const rows = await this.deps.sequelize.query<{ id: string }>(
      `SELECT a.id::text AS id FROM actors a
        WHERE a.suspended_at IS NULL AND a.type IN ('Person', 'Service', 'Group')
          AND (lower(a.username) LIKE $2 OR lower(a.display_name) LIKE $2)
          AND ($3::boolean IS FALSE OR EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = $1::bigint
                 AND f.target_actor_id = a.id AND f.accepted_at IS NOT NULL))
          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = $1::bigint AND b.target_account_id = a.id)
                 OR (b.account_id = a.id AND b.target_account_id = $1::bigint))
        ORDER BY lower(a.username) = $4 DESC, a.domain IS NOT NULL, a.id
        LIMIT $5 OFFSET $6`,
      {
        bind: [viewer?.id ?? null, prefix, query.following, term.toLowerCase(), query.limit, query.offset],
        type: QueryTypes.SELECT,
      },
    );
    const actors = await this.deps.actors.findByIds(rows.map((row) => row.id));
    return this.deps.accounts.views(
      rows.map((row) => actors.get(row.id)).filter((actor) => actor !== undefined),
    );
  }

  /**
   * The early API's POST /api/follows: follows `user@domain`, found through WebFinger when it is
   * not known yet. Returns the followed account. Errors: NotFound, Forbidden (as `follow`).
   */
  async followAddress(userId: string, address: string | undefined): Promise<AccountView> {
    const term = (address ?? '').trim();
    const named = parseAcct(term, this.deps.accounts.localDomain);
    if (!named) throw new NotFound(RECORD_NOT_FOUND);
    let actor = await this.deps.actors.findByUsername(named.username, named.domain);
    if (!actor && named.domain !== null) actor = await this.deps.federation.resolveAccount(term);
    if (!actor) throw new NotFound(RECORD_NOT_FOUND);
    await this.follow(userId, actor.id, {});
    return this.deps.accounts.findById(actor.id);
  }

  /** Whether `accountId` blocks `other`, or `other` blocks it, or `accountId` blocks other's domain. */
  async blocksEither(accountId: string, other: Actor): Promise<boolean> {
    const rows = await this.deps.sequelize.query<{ blocked: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM blocks WHERE (account_id = $1 AND target_account_id = $2)
                                            OR (account_id = $2 AND target_account_id = $1))
           OR EXISTS (SELECT 1 FROM account_domain_blocks WHERE account_id = $1 AND domain = lower($3::text))
           AS blocked`,
      { bind: [accountId, other.id, other.domain ?? ''], type: QueryTypes.SELECT },
    );
    return rows[0]?.blocked === true;
  }

  /** Deletes mutes whose time is up (housekeeping; reads already ignore them). */
  async purgeExpiredMutes(): Promise<number> {
    const rows = await this.deps.sequelize.query<{ id: string }>(
      'DELETE FROM mutes WHERE expires_at <= now() RETURNING id',
      { type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  private async blocks(accountId: string, targetId: string): Promise<boolean> {
    const rows = await this.deps.sequelize.query(
      'SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2',
      { bind: [accountId, targetId], type: QueryTypes.SELECT },
    );
    return rows.length > 0;
  }

  /** The account a path names; unknown, malformed or suspended ids are 404 "Record not found". */
  private async target(id: string): Promise<Actor> {
    const actor = isRowId(id) ? await this.deps.actors.findById(id) : null;
    // Local accounts are Persons and Services; the instance actor (a local Application) is none.
    if (!actor || actor.suspended || (actor.local && !LOCAL_ACCOUNT_TYPES.includes(actor.type)))
      throw new NotFound(RECORD_NOT_FOUND);
    return actor;
  }

  private domainParam(domain: string | undefined): string {
    const normalized = (domain ?? '').trim().toLowerCase().replace(/\.$/, '');
    if (normalized === '')
      throw new BadInput("Validation failed: Domain can't be blank", {
        fields: { domain: ["can't be blank"] },
      });
    if (normalized === this.deps.accounts.localDomain)
      throw new BadInput('Validation failed: Domain is your own');
    return normalized;
  }

  /** Runs a cursor/account-id query as a page, then loads the accounts (suspended ones left out). */
  private async accountPage<Extra extends object = object>(
    sql: string,
    cursorColumn: string,
    bind: unknown[],
    page: PageRequest,
  ): Promise<Page<AccountView & { row: Extra }>> {
    const values = [...bind];
    const { where, tail } = pageSql(cursorColumn, page, values);
    const rows = await this.deps.sequelize.query<{ cursor: string; accountId: string } & Extra>(
      `${sql}${where}${tail}`,
      { bind: values, type: QueryTypes.SELECT },
    );
    const paged = pageRows(rows, page);
    const actors = await this.deps.actors.findByIds(paged.items.map((row) => row.accountId));
    const shown = paged.items.filter(
      (row) => actors.get(row.accountId) && !actors.get(row.accountId)!.suspended,
    );
    const views = await this.deps.accounts.views(shown.map((row) => actors.get(row.accountId)!));
    return {
      ...paged,
      fetched: rows.length,
      items: views.map((view, index) => ({ ...view, row: shown[index]! })),
    };
  }
}

const LOCAL_ACCOUNT_TYPES: readonly string[] = ['Person', 'Service'];

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

interface RelationshipRow {
  id: string;
  following: boolean;
  requested: boolean;
  showReblogs: boolean | null;
  notify: boolean | null;
  languages: string[] | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  muting: boolean;
  muteNotifications: boolean | null;
  muteExpiresAt: Date | null;
  domainBlocking: boolean;
}

// One statement for any number of accounts, in the order asked (WITH ORDINALITY); every lookup is
// an index probe: follows_actor_target_key both ways, the blocks/mutes keys, the domain-blocks key.
const RELATIONSHIPS_STATEMENT = preparedStatement<RelationshipRow, [viewerId: string, ids: string[]]>({
  name: 'microblog_relationships',
  text: `SELECT a.id::text AS id,
                f.accepted_at IS NOT NULL AS following,
                f.id IS NOT NULL AND f.accepted_at IS NULL AS requested,
                f.show_reblogs AS "showReblogs", f.notify, f.languages,
                r.accepted_at IS NOT NULL AS "followedBy",
                r.id IS NOT NULL AND r.accepted_at IS NULL AS "requestedBy",
                b.id IS NOT NULL AS blocking,
                rb.id IS NOT NULL AS "blockedBy",
                m.id IS NOT NULL AS muting,
                m.notifications AS "muteNotifications", m.expires_at AS "muteExpiresAt",
                d.id IS NOT NULL AS "domainBlocking"
           FROM unnest($2::bigint[]) WITH ORDINALITY AS wanted (id, position)
           JOIN actors a ON a.id = wanted.id AND a.suspended_at IS NULL
           LEFT JOIN follows f ON f.actor_id = $1 AND f.target_actor_id = a.id
           LEFT JOIN follows r ON r.actor_id = a.id AND r.target_actor_id = $1
           LEFT JOIN blocks b ON b.account_id = $1 AND b.target_account_id = a.id
           LEFT JOIN blocks rb ON rb.account_id = a.id AND rb.target_account_id = $1
           LEFT JOIN mutes m ON m.account_id = $1 AND m.target_account_id = a.id
                            AND (m.expires_at IS NULL OR m.expires_at > now())
           LEFT JOIN account_domain_blocks d ON d.account_id = $1 AND d.domain = lower(a.domain)
          ORDER BY wanted.position`,
});

function toRelationship(row: RelationshipRow): Relationship {
  const follows = row.following || row.requested;
  return {
    id: row.id,
    following: row.following,
    showingReblogs: follows ? row.showReblogs === true : false,
    notifying: follows ? row.notify === true : false,
    languages: follows ? row.languages : null,
    followedBy: row.followedBy,
    blocking: row.blocking,
    blockedBy: row.blockedBy,
    muting: row.muting,
    mutingNotifications: row.muting ? row.muteNotifications === true : false,
    mutingExpiresAt: row.muteExpiresAt === null ? null : new Date(row.muteExpiresAt),
    requested: row.requested,
    requestedBy: row.requestedBy,
    domainBlocking: row.domainBlocking,
    endorsed: false,
    note: '',
  };
}
