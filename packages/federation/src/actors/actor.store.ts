import { BadInput, Conflict, NotFound, type JobQueue } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import {
  Op,
  QueryTypes,
  UniqueConstraintError,
  type Sequelize,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
import { defineActorModels, type ActorModel, type ActorRow } from './actor.model.js';
import { generateActorKeyPair, mainKeyId } from './actor.keys.js';
import type { Actor, ActorField, ActorType, ActorUrlScheme, ActorUrls } from './actor.types.js';

/** The queue that gives new local actors their key pair, off the request path. */
export const ACTOR_KEYS_JOB = 'federation.actor-keys';

export interface CreateLocalActorInput {
  type: ActorType;
  username: string;
  displayName?: string;
  summary?: string;
  fields?: ActorField[];
  userId?: string | null;
  manuallyApprovesFollowers?: boolean;
  discoverable?: boolean;
  indexable?: boolean;
  /** URLs outside the service's scheme (the instance actor's `/actor` or `/relay`). */
  urls?: ActorUrls;
}

/** What a local owner may change on an actor; omitted keys stay as they are. */
export interface ActorUpdate {
  displayName?: string;
  summary?: string;
  fields?: ActorField[];
  manuallyApprovesFollowers?: boolean;
  discoverable?: boolean;
  indexable?: boolean;
  avatarUrl?: string | null;
  headerUrl?: string | null;
}

/** A remote actor as read from its (already verified and sanitized) ActivityPub document. */
export interface RemoteActorInput extends ActorUrls, ActorUpdate {
  type: ActorType;
  username: string;
  domain: string;
  publicKeyPem: string | null;
  keyId: string | null;
  alsoKnownAs?: string[];
  followersCount?: number;
  followingCount?: number;
  statusesCount?: number;
  /** Set when the actor is first stored (its domain is silenced); an existing actor keeps its own. */
  silencedAt?: Date | null;
}

export interface ActorSigningKey {
  keyId: string;
  privateKeyPem: string;
  publicKeyPem: string;
  actorUri: string;
}

export interface ActorStoreOptions {
  sequelize: Sequelize;
  /** How this service lays out its local actors' URLs. */
  urls: ActorUrlScheme;
  /** When given, new local actors get their keys from a job (`registerKeyWorker`); else on first use. */
  queue?: JobQueue;
  now?: () => Date;
}

export interface ActorSearch {
  /** Matched against username and display name, case-insensitively. */
  query?: string;
  types?: ActorType[];
  local?: boolean;
  domain?: string;
  includeSuspended?: boolean;
  limit: number;
  offset: number;
}

/** Reads and writes actors and their keys: the one actor model of both services. */
export class ActorStore {
  readonly model: ActorModel;
  private readonly sequelize: Sequelize;
  private readonly urls: ActorUrlScheme;
  private readonly queue: JobQueue | undefined;
  private readonly now: () => Date;

  constructor(options: ActorStoreOptions) {
    this.model = defineActorModels(options.sequelize).Actor;
    this.sequelize = options.sequelize;
    this.urls = options.urls;
    this.queue = options.queue;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Creates a local actor. Its key pair comes from the key job after the (outer) transaction commits,
   * or on first use. Errors: Conflict `username_taken` when the name exists on this instance
   * (case-insensitively, any actor type) or is reserved (a deleted local actor's).
   */
  async createLocal(
    input: CreateLocalActorInput,
    options: { transaction?: Transaction } = {},
  ): Promise<Actor> {
    const urls = input.urls ?? this.urls({ type: input.type, username: input.username });
    const now = this.now();
    const [reserved] = await this.sequelize.query(
      'SELECT 1 FROM reserved_usernames WHERE username = lower($1)',
      { bind: [input.username], type: QueryTypes.SELECT, transaction: options.transaction },
    );
    if (reserved) throw usernameTaken();
    let row: ActorRow;
    try {
      const created = await this.model.create(
        {
          type: input.type,
          username: input.username,
          domain: null,
          ...urls,
          keyId: mainKeyId(urls.uri),
          displayName: input.displayName ?? '',
          summary: input.summary ?? '',
          fields: input.fields ?? [],
          userId: input.userId ?? null,
          manuallyApprovesFollowers: input.manuallyApprovesFollowers ?? false,
          discoverable: input.discoverable ?? true,
          indexable: input.indexable ?? false,
          createdAt: now,
          updatedAt: now,
        },
        { transaction: options.transaction },
      );
      row = created.get();
    } catch (error) {
      throw mapUniqueName(error);
    }
    const enqueue = async () => {
      await this.queue?.send(ACTOR_KEYS_JOB, { actorId: String(row.id) }, { singletonKey: `keys:${row.id}` });
    };
    if (options.transaction) options.transaction.afterCommit(enqueue);
    else await enqueue();
    return toActor(row);
  }

  /**
   * The instance's own actor (Mastodon's `/actor`, the events reference's `/relay`), created on first
   * call with its keys: it signs the fetches the instance makes on nobody's behalf.
   */
  async ensureInstanceActor(input: { type: ActorType; username: string; urls: ActorUrls }): Promise<Actor> {
    const existing = await this.findByUsername(input.username, null);
    if (existing) return existing;
    try {
      const created = await this.createLocal({
        ...input,
        discoverable: false,
        manuallyApprovesFollowers: true,
      });
      await this.ensureKeys(created.id);
      return (await this.findById(created.id))!;
    } catch (error) {
      // Another process created it first.
      const winner = await this.findByUsername(input.username, null);
      if (winner) return winner;
      throw error;
    }
  }

  /** Registers the key job's handler (worker and all roles). */
  async registerKeyWorker(): Promise<void> {
    if (!this.queue) throw new Error('ActorStore has no queue');
    await this.queue.work<{ actorId: string }>(ACTOR_KEYS_JOB, async (job) => {
      // The actor may be gone already (deleted right after sign-up): nothing to do then.
      await this.ensureKeys(job.data.actorId).catch((error: unknown) => {
        if (!(error instanceof NotFound)) throw error;
      });
    });
  }

  /**
   * The actor's signing key, generating the pair if it has none yet. Concurrent callers get the same
   * pair: the first write wins and the others read it back.
   */
  async ensureKeys(actorId: string): Promise<ActorSigningKey> {
    const existing = await this.signingKey(actorId);
    if (existing) return existing;
    const actor = await this.findById(actorId);
    if (!actor) throw new NotFound('Actor not found');
    if (!actor.local) throw new BadInput('Remote actors have no private key here');
    const pair = await generateActorKeyPair();
    await this.sequelize.query(
      `UPDATE actors SET public_key_pem = $1, private_key_pem = $2, key_id = $3, updated_at = now()
        WHERE id = $4 AND private_key_pem IS NULL`,
      {
        bind: [pair.publicKeyPem, pair.privateKeyPem, mainKeyId(actor.uri), actorId],
        type: QueryTypes.UPDATE,
      },
    );
    const key = await this.signingKey(actorId);
    if (!key) throw new NotFound('Actor not found');
    return key;
  }

  /** The actor's private key, or null when it has none (remote, or not generated yet). */
  async signingKey(actorId: string): Promise<ActorSigningKey | null> {
    if (!isActorId(actorId)) return null;
    const rows = await this.sequelize.query<{
      keyId: string;
      privateKeyPem: string;
      publicKeyPem: string;
      uri: string;
    }>(
      `SELECT key_id AS "keyId", private_key_pem AS "privateKeyPem", public_key_pem AS "publicKeyPem", uri
         FROM actors WHERE id = $1 AND private_key_pem IS NOT NULL`,
      { bind: [actorId], type: QueryTypes.SELECT },
    );
    const row = rows[0];
    return row
      ? {
          keyId: row.keyId,
          privateKeyPem: row.privateKeyPem,
          publicKeyPem: row.publicKeyPem,
          actorUri: row.uri,
        }
      : null;
  }

  /** Local actors still without keys (the key job was lost, or no queue): generates up to `limit`. */
  async generateMissingKeys(limit = 100): Promise<number> {
    const rows = await this.sequelize.query<{ id: string }>(
      'SELECT id FROM actors WHERE domain IS NULL AND private_key_pem IS NULL ORDER BY id LIMIT $1',
      { bind: [limit], type: QueryTypes.SELECT },
    );
    for (const { id } of rows) await this.ensureKeys(String(id));
    return rows.length;
  }

  async findById(id: string): Promise<Actor | null> {
    if (!isActorId(id)) return null;
    const [row] = await BY_ID_STATEMENT.rows(this.sequelize, [id]);
    return row ? toActor(row) : null;
  }

  /**
   * Many actors in one query (DataLoader batches); missing ids are absent from the map. Every status
   * view reads its accounts here: one named statement, not a model query built and mapped each time.
   */
  async findByIds(ids: readonly string[]): Promise<Map<string, Actor>> {
    const valid = [...new Set(ids.filter(isActorId))];
    const found = new Map<string, Actor>();
    if (valid.length === 0) return found;
    const rows = await BY_IDS_STATEMENT.rows(this.sequelize, [valid]);
    for (const row of rows) {
      const actor = toActor(row);
      found.set(actor.id, actor);
    }
    return found;
  }

  async findByUri(uri: string): Promise<Actor | null> {
    const row = await this.model.findOne({ where: { uri } });
    return row ? toActor(row.get()) : null;
  }

  /** By `preferredUsername` and domain (null = local), case-insensitively. */
  async findByUsername(username: string, domain: string | null, types?: ActorType[]): Promise<Actor | null> {
    const where: WhereOptions<ActorRow>[] = [
      this.sequelize.where(
        this.sequelize.fn('lower', this.sequelize.col('username')),
        username.toLowerCase(),
      ),
      this.sequelize.where(
        this.sequelize.fn('lower', this.sequelize.fn('coalesce', this.sequelize.col('domain'), '')),
        (domain ?? '').toLowerCase(),
      ),
    ];
    if (types) where.push({ type: { [Op.in]: types } });
    const row = await this.model.findOne({ where: { [Op.and]: where } });
    return row ? toActor(row.get()) : null;
  }

  /**
   * The oldest local actor of these types owned by a user: the microblog's account of a signed-in
   * user, read on every authenticated request, so one named (prepared once per connection) statement.
   */
  async findFirstByUser(userId: string, types: readonly ActorType[]): Promise<Actor | null> {
    if (!isActorId(userId)) return null;
    const [row] = await FIRST_BY_USER_STATEMENT.rows(this.sequelize, [userId, types]);
    return row ? toActor(row) : null;
  }

  /** A local account's actors, oldest first. */
  async listByUser(userId: string, types?: ActorType[]): Promise<Actor[]> {
    if (!isActorId(userId)) return [];
    const rows = await this.model.findAll({
      where: { userId, domain: null, ...(types ? { type: { [Op.in]: types } } : {}) },
      order: [['id', 'ASC']],
    });
    return rows.map((row) => toActor(row.get()));
  }

  /** Matching actors, most relevant (exact name) first, with the total for pagination. */
  async search(options: ActorSearch): Promise<{ total: number; elements: Actor[] }> {
    const conditions: WhereOptions<ActorRow>[] = [];
    if (options.query) {
      const pattern = `%${escapeLike(options.query.trim().replace(/^@/, ''))}%`;
      conditions.push({
        [Op.or]: [{ username: { [Op.iLike]: pattern } }, { displayName: { [Op.iLike]: pattern } }],
      });
    }
    if (options.types) conditions.push({ type: { [Op.in]: options.types } });
    if (options.local === true) conditions.push({ domain: null });
    if (options.local === false) conditions.push({ domain: { [Op.ne]: null } });
    if (options.domain !== undefined) conditions.push({ domain: options.domain });
    if (!options.includeSuspended) conditions.push({ suspendedAt: null });
    const { count, rows } = await this.model.findAndCountAll({
      where: { [Op.and]: conditions },
      // Without a term there is no exact name to rank first: by age alone (a constant would read as
      // `ORDER BY 0`, a column position PostgreSQL refuses).
      order: options.query?.trim()
        ? [
            [this.sequelize.literal(exactNameFirst(this.sequelize, options.query)), 'ASC'],
            ['id', 'ASC'],
          ]
        : [['id', 'ASC']],
      limit: options.limit,
      offset: options.offset,
    });
    return { total: count, elements: rows.map((row) => toActor(row.get())) };
  }

  /** Applies a local owner's changes. Errors: NotFound. */
  async update(id: string, patch: ActorUpdate, options: { transaction?: Transaction } = {}): Promise<Actor> {
    const values: Partial<ActorRow> = { updatedAt: this.now() };
    let changed = false;
    for (const key of UPDATABLE) {
      if (patch[key] === undefined) continue;
      (values as Record<string, unknown>)[key] = patch[key];
      changed = true;
    }
    // Sequelize sends no UPDATE (and returns no rows) when nothing but the timestamp would change.
    if (!changed) {
      const actor = await this.findById(id);
      if (!actor) throw new NotFound('Actor not found');
      return actor;
    }
    const [, rows] = await this.model.update(values, {
      where: { id: isActorId(id) ? id : '0' },
      returning: true,
      transaction: options.transaction,
    });
    const row = rows[0];
    if (!row) throw new NotFound('Actor not found');
    return toActor(row.get());
  }

  /**
   * Changes a local actor's type (a microblog account marked as a bot: `Person` ↔ `Service`), for apps
   * that never write this package's table themselves. Errors: NotFound (no such local actor).
   */
  async setType(id: string, type: ActorType, options: { transaction?: Transaction } = {}): Promise<Actor> {
    const [, rows] = await this.model.update(
      { type, updatedAt: this.now() },
      {
        where: { id: isActorId(id) ? id : '0', domain: null },
        returning: true,
        transaction: options.transaction,
      },
    );
    const row = rows[0];
    if (!row) throw new NotFound('Actor not found');
    return toActor(row.get());
  }

  /** Creates or refreshes a remote actor from its document, keyed by its URI. */
  async upsertRemote(input: RemoteActorInput): Promise<Actor> {
    const now = this.now();
    const values = {
      type: input.type,
      username: input.username,
      domain: input.domain.toLowerCase(),
      uri: input.uri,
      url: input.url,
      inboxUrl: input.inboxUrl,
      outboxUrl: input.outboxUrl,
      sharedInboxUrl: input.sharedInboxUrl,
      followersUrl: input.followersUrl,
      followingUrl: input.followingUrl,
      endpoints: input.endpoints,
      publicKeyPem: input.publicKeyPem,
      keyId: input.keyId,
      displayName: input.displayName ?? '',
      summary: input.summary ?? '',
      fields: input.fields ?? [],
      manuallyApprovesFollowers: input.manuallyApprovesFollowers ?? false,
      discoverable: input.discoverable ?? false,
      indexable: input.indexable ?? false,
      avatarUrl: input.avatarUrl ?? null,
      headerUrl: input.headerUrl ?? null,
      alsoKnownAs: input.alsoKnownAs ?? [],
      followersCount: input.followersCount ?? 0,
      followingCount: input.followingCount ?? 0,
      statusesCount: input.statusesCount ?? 0,
      fetchedAt: now,
      updatedAt: now,
    };
    try {
      const existing = await this.model.findOne({ where: { uri: input.uri } });
      if (existing) {
        if (existing.get('domain') === null)
          throw new BadInput('A remote document may not replace a local actor');
        await existing.update(values);
        return toActor(existing.get());
      }
      // A new actor of a silenced domain starts silenced (existing ones were silenced with the block).
      const created = await this.model.create({
        ...values,
        silencedAt: input.silencedAt ?? null,
        createdAt: now,
      });
      return toActor(created.get());
    } catch (error) {
      throw mapUniqueName(error);
    }
  }

  async suspend(id: string, suspended: boolean): Promise<Actor> {
    const [, rows] = await this.model.update(
      { suspendedAt: suspended ? this.now() : null, updatedAt: this.now() },
      { where: { id: isActorId(id) ? id : '0' }, returning: true },
    );
    const row = rows[0];
    if (!row) throw new NotFound('Actor not found');
    return toActor(row.get());
  }

  /** Deletes an actor; a local one's name stays reserved (`reserved_usernames`). */
  async remove(id: string, options: { transaction?: Transaction } = {}): Promise<boolean> {
    if (!isActorId(id)) return false;
    await this.sequelize.query(
      `INSERT INTO reserved_usernames (username)
       SELECT lower(username) FROM actors WHERE id = $1 AND domain IS NULL ON CONFLICT DO NOTHING`,
      { bind: [id], transaction: options.transaction },
    );
    const deleted = await this.model.destroy({ where: { id }, transaction: options.transaction });
    return deleted > 0;
  }

  /** Reserves the names of a user's local actors, before the user (and by cascade they) go. */
  async reserveUsernamesOfUser(userId: string, options: { transaction?: Transaction } = {}): Promise<void> {
    await this.sequelize.query(
      `INSERT INTO reserved_usernames (username)
       SELECT lower(username) FROM actors WHERE user_id = $1 AND domain IS NULL ON CONFLICT DO NOTHING`,
      { bind: [userId], transaction: options.transaction },
    );
  }
}

const UPDATABLE = [
  'displayName',
  'summary',
  'fields',
  'manuallyApprovesFollowers',
  'discoverable',
  'indexable',
  'avatarUrl',
  'headerUrl',
] as const satisfies ReadonlyArray<keyof ActorUpdate>;

/**
 * The columns of `actors` (table alias `a`) under their ActorRow names, so a row read with plain SQL
 * maps with `toActor` like a model instance's. The private key is never read this way.
 */
export const ACTOR_SELECT_LIST = `a.id, a.type, a.username, a.domain, a.uri, a.url, a.display_name AS "displayName", a.summary, a.fields,
  a.inbox_url AS "inboxUrl", a.outbox_url AS "outboxUrl", a.shared_inbox_url AS "sharedInboxUrl",
  a.followers_url AS "followersUrl", a.following_url AS "followingUrl", a.endpoints,
  a.public_key_pem AS "publicKeyPem", NULL AS "privateKeyPem", a.key_id AS "keyId",
  a.manually_approves_followers AS "manuallyApprovesFollowers", a.discoverable, a.indexable,
  a.avatar_url AS "avatarUrl", a.header_url AS "headerUrl", a.also_known_as AS "alsoKnownAs",
  a.moved_to_actor_id AS "movedToActorId", a.user_id AS "userId", a.followers_count AS "followersCount",
  a.following_count AS "followingCount", a.statuses_count AS "statusesCount", a.last_status_at AS "lastStatusAt",
  a.suspended_at AS "suspendedAt", a.silenced_at AS "silencedAt", a.fetched_at AS "fetchedAt",
  a.created_at AS "createdAt", a.updated_at AS "updatedAt"`;

const FIRST_BY_USER_STATEMENT = preparedStatement<ActorRow, [userId: string, types: readonly ActorType[]]>({
  name: 'agora_actor_first_by_user',
  text: `SELECT ${ACTOR_SELECT_LIST} FROM actors a
          WHERE a.user_id = $1 AND a.domain IS NULL AND a.type = ANY($2::text[]) ORDER BY a.id LIMIT 1`,
});

const BY_ID_STATEMENT = preparedStatement<ActorRow, [id: string]>({
  name: 'agora_actor_by_id',
  text: `SELECT ${ACTOR_SELECT_LIST} FROM actors a WHERE a.id = $1`,
});

const BY_IDS_STATEMENT = preparedStatement<ActorRow, [ids: readonly string[]]>({
  name: 'agora_actors_by_ids',
  text: `SELECT ${ACTOR_SELECT_LIST} FROM actors a WHERE a.id = ANY($1::bigint[])`,
});

export const isActorId = isRowId;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function exactNameFirst(sequelize: Sequelize, query: string): string {
  const name = sequelize.escape(query.trim().replace(/^@/, '').toLowerCase());
  return `CASE WHEN lower("Actor"."username") = ${name} THEN 0 ELSE 1 END`;
}

function usernameTaken(): Conflict {
  return new Conflict('This username is already taken', {
    code: 'username_taken',
    fields: { preferred_username: ['has already been taken'] },
  });
}

function mapUniqueName(error: unknown): unknown {
  if (error instanceof UniqueConstraintError) {
    const constraint = (error.parent as { constraint?: string } | undefined)?.constraint;
    if (constraint === 'actors_username_domain_key') return usernameTaken();
    if (constraint === 'actors_uri_key') return new Conflict('An actor with this id already exists');
  }
  return error;
}

export function toActor(row: ActorRow): Actor {
  return {
    id: String(row.id),
    type: row.type,
    username: row.username,
    domain: row.domain,
    local: row.domain === null,
    uri: row.uri,
    url: row.url,
    displayName: row.displayName,
    summary: row.summary,
    fields: row.fields,
    inboxUrl: row.inboxUrl,
    outboxUrl: row.outboxUrl,
    sharedInboxUrl: row.sharedInboxUrl,
    followersUrl: row.followersUrl,
    followingUrl: row.followingUrl,
    endpoints: row.endpoints,
    publicKeyPem: row.publicKeyPem,
    keyId: row.keyId,
    manuallyApprovesFollowers: row.manuallyApprovesFollowers,
    discoverable: row.discoverable,
    indexable: row.indexable,
    avatarUrl: row.avatarUrl,
    headerUrl: row.headerUrl,
    alsoKnownAs: row.alsoKnownAs,
    movedToActorId: row.movedToActorId === null ? null : String(row.movedToActorId),
    userId: row.userId === null ? null : String(row.userId),
    followersCount: row.followersCount,
    followingCount: row.followingCount,
    statusesCount: row.statusesCount,
    lastStatusAt: row.lastStatusAt,
    suspended: row.suspendedAt !== null,
    suspendedAt: row.suspendedAt,
    silencedAt: row.silencedAt,
    fetchedAt: row.fetchedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
