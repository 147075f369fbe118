/**
 * The microblog service at scale (issue 15's benchmarks): a home timeline among 1M statuses, and an
 * author with 10,000 local followers. Bulk rows are written in a few INSERT … SELECT statements
 * around data made through the public API (a signed-in viewer, an uploaded image, a post with it, a
 * follow, a favourite, a reblog), so what the bulk rows copy (media files, keys) is what the service
 * itself writes.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createSequelize, QueryTypes, type Sequelize } from '@agora/db';
import sharp from 'sharp';
import { microblogUserToken, type SeedContext, type Seeded } from './seeds.js';
import { drawnWordsSql, VOCABULARY } from './words.js';

export interface HomeAtScale {
  /** Statuses in the database (a tenth of them reblogs, a tenth with media). */
  statuses: number;
  /** Accounts the statuses are spread over (every fifth one remote). */
  authors: number;
  /** How many of those the viewer follows. */
  followed: number;
}

export const HOME_AT_SCALE: HomeAtScale = { statuses: 1_000_000, authors: 2_000, followed: 500 };

/** The fan-out scenario's author's local followers. */
export const FAN_OUT_FOLLOWERS = 10_000;

interface Viewer {
  token: string;
  accountId: string;
  username: string;
}

async function api(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A signed-up, confirmed user with `read write` through the API, and its account id. */
export async function microblogViewer(baseUrl: string, databaseUrl: string): Promise<Viewer> {
  const token = await microblogUserToken(baseUrl, databaseUrl);
  const me = await api(baseUrl, 'GET', '/api/v1/accounts/verify_credentials', token);
  return { token, accountId: String(me.id), username: String(me.username) };
}

/** A small JPEG uploaded through POST /api/v2/media, waited for until processed: its id. */
async function uploadImage(baseUrl: string, token: string): Promise<string> {
  const jpeg = await sharp({
    create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 120, b: 200 } },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'bench.jpg');
  form.append('description', 'A blue rectangle');
  const created = await api(baseUrl, 'POST', '/api/v2/media', token, form);
  const id = String(created.id);
  for (let i = 0; i < 200; i++) {
    const media = await api(baseUrl, 'GET', `/api/v1/media/${id}`, token).catch(() => null);
    if (media && typeof media.url === 'string') return id;
    await delay(100);
  }
  throw new Error(`media ${id} was not processed within 20 s`);
}

async function withDatabase<T>(databaseUrl: string, work: (sequelize: Sequelize) => Promise<T>): Promise<T> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  try {
    return await work(sequelize);
  } finally {
    await sequelize.close();
  }
}

async function scalar(sequelize: Sequelize, sql: string, bind: unknown[] = []): Promise<number> {
  const [row] = await sequelize.query<{ n: string | number }>(sql, { bind, type: QueryTypes.SELECT });
  return Number(row?.n ?? 0);
}

/** One key pair for every bulk local account (their keys are never used; the key job skips them). */
function benchKeys(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/**
 * Bulk local (and every fifth remote) accounts named `<prefix><n>`, in a temp table `bench_authors`
 * (n, id) of this session.
 */
async function bulkAccounts(
  sequelize: Sequelize,
  baseUrl: string,
  prefix: string,
  count: number,
  remoteEvery: number,
): Promise<void> {
  const keys = benchKeys();
  await sequelize.query(
    `CREATE TEMP TABLE bench_authors AS
     WITH made AS (
       INSERT INTO actors (type, username, domain, uri, url, display_name, summary, inbox_url, outbox_url,
                           shared_inbox_url, followers_url, following_url, public_key_pem, private_key_pem,
                           key_id, avatar_url, header_url, created_at)
       SELECT 'Person', $2 || i, d.domain, d.base || '/users/' || $2 || i, d.base || '/@' || $2 || i,
              'Bench person ' || i, '<p>Account ' || i || ' of the bench.</p>',
              d.base || '/users/' || $2 || i || '/inbox', d.base || '/users/' || $2 || i || '/outbox',
              d.base || '/inbox', d.base || '/users/' || $2 || i || '/followers',
              d.base || '/users/' || $2 || i || '/following', $4,
              CASE WHEN d.domain IS NULL THEN $5 END, d.base || '/users/' || $2 || i || '#main-key',
              CASE WHEN d.domain IS NOT NULL THEN d.base || '/avatars/' || i || '.png' END,
              CASE WHEN d.domain IS NOT NULL THEN d.base || '/headers/' || i || '.png' END,
              now() - interval '400 days'
         FROM generate_series(1, $1) AS i
         CROSS JOIN LATERAL (
           SELECT CASE WHEN $6 > 0 AND i % $6 = 0 THEN 'remote' || (i % 20) || '.example' END AS domain,
                  CASE WHEN $6 > 0 AND i % $6 = 0 THEN 'https://remote' || (i % 20) || '.example' ELSE $3 END AS base
         ) d
       RETURNING id, username
     )
     SELECT id, substr(username, length($2) + 1)::int AS n, username FROM made`,
    { bind: [count, prefix, baseUrl, keys.publicKeyPem, keys.privateKeyPem, remoteEvery] },
  );
  await sequelize.query('CREATE UNIQUE INDEX ON bench_authors (n)');
  await sequelize.query('ANALYZE bench_authors');
}

/**
 * The home timeline's bulk rows, with triggers off for the session (counters are set in the rows and
 * recounted at the end): authors, `scale.statuses` statuses (every 10th a reblog of the 5th before it,
 * the others with a few words drawn from VOCABULARY in front of their numbered sentence,
 * every 10th from 3 with an image copied from `mediaId`, some unlisted or private, tags and mentions
 * on a few), favourites from other accounts on a quarter of them, the viewer's follows of the first
 * `scale.followed` authors, its favourites and bookmarks among their statuses, and the home feed rows
 * the fan-out would have written (each local author's own, the viewer's).
 */
async function bulkHome(
  databaseUrl: string,
  baseUrl: string,
  viewer: Viewer,
  mediaId: string,
  scale: HomeAtScale,
): Promise<void> {
  await withDatabase(databaseUrl, async (sequelize) => {
    const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
    // Triggers (counters, foreign keys) off for this session only: the rows are made consistent.
    await run("SET session_replication_role = 'replica'");
    await run('SELECT setseed(0.16)');
    await bulkAccounts(sequelize, baseUrl, 'hb', scale.authors, 5);
    await run(
      `INSERT INTO tags (name) SELECT 'benchtag' || i FROM generate_series(0, 99) AS i ON CONFLICT DO NOTHING`,
    );
    // Ids as statuses_next_id() makes them: milliseconds << 16 | sequence, 100 ms apart, ending a minute ago.
    const t0 = Date.now() - scale.statuses * 100 - 60_000;
    await run(
      `CREATE TEMP TABLE bench_statuses AS
       SELECT i, ((($2::bigint + i * 100) << 16) | (i % 65536)) AS id,
              CASE WHEN i % 10 = 0 THEN ((($2::bigint + (i - 5) * 100) << 16) | ((i - 5) % 65536)) END AS reblog_of_id,
              (1 + (i::bigint * 7919) % $3)::int AS n,
              CASE WHEN i % 10 <> 0 THEN ${drawnWordsSql(4)} || '. ' ELSE '' END AS words
         FROM generate_series(1, $1) AS i`,
      [scale.statuses, t0, scale.authors, VOCABULARY],
    );
    await run(
      `INSERT INTO statuses (id, uri, url, account_id, local, text, content, visibility, language,
                             reblog_of_id, has_media, sensitive, spoiler_text, replies_count,
                             reblogs_count, favourites_count, created_at, updated_at)
       SELECT g.id, a.uri || '/statuses/' || g.id, replace(a.uri, '/users/', '/@') || '/' || g.id,
              a.id, a.domain IS NULL,
              CASE WHEN g.reblog_of_id IS NULL
                   THEN g.words || 'Status ' || g.i || ' of the bench: a sentence or two of text, #benchtag' || (g.i % 100) ELSE '' END,
              CASE WHEN g.reblog_of_id IS NULL
                   THEN '<p>' || g.words || 'Status ' || g.i || ' of the bench: a sentence or two of text, <a href="' || $1 ||
                        '/tags/benchtag' || (g.i % 100) || '" class="mention hashtag" rel="tag">#<span>benchtag' ||
                        (g.i % 100) || '</span></a></p>' ELSE '' END,
              CASE WHEN g.i % 130 = 1 THEN 'unlisted' WHEN g.i % 170 = 7 THEN 'private' ELSE 'public' END,
              CASE WHEN g.reblog_of_id IS NULL THEN 'en' END,
              g.reblog_of_id, g.i % 10 = 3, g.i % 50 = 3,
              CASE WHEN g.i % 50 = 3 THEN 'bench content warning' ELSE '' END,
              CASE WHEN g.reblog_of_id IS NULL THEN g.i % 4 ELSE 0 END,
              CASE WHEN g.i % 10 = 5 THEN 1 ELSE 0 END, 0,
              to_timestamp(($2::bigint + g.i * 100) / 1000.0), to_timestamp(($2::bigint + g.i * 100) / 1000.0)
         FROM bench_statuses g JOIN bench_authors b ON b.n = g.n JOIN actors a ON a.id = b.id`,
      [baseUrl, t0],
    );
    // Every 10th status from the 3rd has the API-made image (copied row, same files).
    await run(
      `INSERT INTO media_attachments (account_id, status_id, type, processing, file_keys, content_type,
                                      file_size, sha256, meta, description, blurhash, created_at, updated_at)
       SELECT s.account_id, s.id, m.type, m.processing, m.file_keys, m.content_type, m.file_size, m.sha256,
              m.meta, 'Image of status ' || s.id, m.blurhash, s.created_at, s.created_at
         FROM statuses s CROSS JOIN (SELECT * FROM media_attachments WHERE id = $1) m
        WHERE s.has_media AND s.id <> m.status_id`,
      [mediaId],
    );
    await run(
      `INSERT INTO statuses_tags (status_id, tag_id)
       SELECT g.id, t.id FROM bench_statuses g JOIN tags t ON lower(t.name) = 'benchtag' || (g.i % 100)
        WHERE g.reblog_of_id IS NULL AND g.i % 20 = 1`,
    );
    await run(
      `INSERT INTO mentions (status_id, account_id)
       SELECT g.id, a.id FROM bench_statuses g JOIN bench_authors a ON a.n = 1 + g.i % $1
        WHERE g.reblog_of_id IS NULL AND g.i % 25 = 2
       ON CONFLICT DO NOTHING`,
      [scale.authors],
    );
    // Favourites from other accounts on a quarter of the originals.
    await run(
      `INSERT INTO favourites (account_id, status_id, created_at)
       SELECT a.id, g.id, now() FROM bench_statuses g JOIN bench_authors a ON a.n = 1 + (g.i * 13) % $1
        WHERE g.reblog_of_id IS NULL AND g.i % 4 = 0`,
      [scale.authors],
    );
    // The viewer follows the first authors, favourites and bookmarks some of their latest statuses.
    await run(
      `INSERT INTO follows (actor_id, target_actor_id, accepted_at, created_at, updated_at)
       SELECT $1, a.id, now(), now(), now() FROM bench_authors a WHERE a.n <= $2`,
      [viewer.accountId, scale.followed],
    );
    await run(
      `INSERT INTO favourites (account_id, status_id)
       SELECT $1, g.id FROM bench_statuses g
        WHERE g.n <= $2 AND g.reblog_of_id IS NULL AND g.i % 3 = 0 AND g.i > $3 - 20000
       ON CONFLICT DO NOTHING`,
      [viewer.accountId, scale.followed, scale.statuses],
    );
    await run(
      `INSERT INTO bookmarks (account_id, status_id)
       SELECT $1, g.id FROM bench_statuses g
        WHERE g.n <= $2 AND g.reblog_of_id IS NULL AND g.i % 7 = 0 AND g.i > $3 - 20000`,
      [viewer.accountId, scale.followed, scale.statuses],
    );
    await run(
      `UPDATE statuses s SET favourites_count = f.n
         FROM (SELECT status_id, count(*) AS n FROM favourites GROUP BY status_id) f
        WHERE s.id = f.status_id`,
    );
    // The home feed rows the fan-out would have written: each local author's own, and the viewer's.
    await run(
      `INSERT INTO home_feed (account_id, status_id)
       SELECT s.account_id, s.id FROM statuses s WHERE s.local
       UNION ALL
       SELECT $1::bigint, g.id FROM bench_statuses g WHERE g.n <= $2
       ON CONFLICT DO NOTHING`,
      [viewer.accountId, scale.followed],
    );
    await recount(sequelize);
    await run('DROP TABLE bench_statuses');
    await run('DROP TABLE bench_authors');
    await run("SET session_replication_role = 'origin'");
  });
}

/** The counters the triggers would have kept (ADR 0005), for the bulk accounts. */
async function recount(sequelize: Sequelize): Promise<void> {
  await sequelize.query(
    `UPDATE actors a SET statuses_count = c.n, last_status_at = c.last
       FROM (SELECT account_id, count(*) AS n, max(created_at) AS last FROM statuses
              WHERE deleted_at IS NULL GROUP BY account_id) c
      WHERE a.id = c.account_id`,
  );
  await sequelize.query(
    `UPDATE actors a SET followers_count = c.n
       FROM (SELECT target_actor_id AS id, count(*) AS n FROM follows WHERE accepted_at IS NOT NULL
              GROUP BY target_actor_id) c
      WHERE a.id = c.id`,
  );
  await sequelize.query(
    `UPDATE actors a SET following_count = c.n
       FROM (SELECT actor_id AS id, count(*) AS n FROM follows WHERE accepted_at IS NOT NULL GROUP BY actor_id) c
      WHERE a.id = c.id`,
  );
}

/** Polls until `sql` (a count) reaches `atLeast`; throws after `timeoutMs`. */
async function waitFor(
  sequelize: Sequelize,
  sql: string,
  bind: unknown[],
  atLeast: number,
  timeoutMs: number,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const n = await scalar(sequelize, sql, bind);
    if (n >= atLeast) return;
    if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${sql}: ${n} < ${atLeast}`);
    await delay(50);
  }
}

/**
 * The home timeline scenario's data: a viewer made through the API following 500 accounts (499 in
 * bulk, one through the API, whose statuses the follow job merges in), 1M statuses in the database,
 * the viewer's own post with an uploaded image, a favourite and a reblog through the API, and the
 * feed rows the fan-out would have written. The request reads the first page (20 statuses).
 */
export async function seedHomeTimeline(
  { baseUrl, databaseUrl }: SeedContext,
  scale: HomeAtScale = HOME_AT_SCALE,
): Promise<Seeded> {
  const started = Date.now();
  const viewer = await microblogViewer(baseUrl, databaseUrl);
  const mediaId = await uploadImage(baseUrl, viewer.token);
  const own = await api(baseUrl, 'POST', '/api/v1/statuses', viewer.token, {
    status: 'Reading my home timeline at scale #bench',
    media_ids: [mediaId],
  });
  await bulkHome(databaseUrl, baseUrl, viewer, mediaId, { ...scale, followed: scale.followed - 1 });
  await withDatabase(databaseUrl, async (sequelize) => {
    // The 500th follow through the API: the merge job adds its latest statuses to the feed.
    const [target] = await sequelize.query<{ id: string }>(
      `SELECT id::text AS id FROM actors WHERE username = 'hb' || $1 AND domain IS NULL`,
      { bind: [scale.followed + 1], type: QueryTypes.SELECT },
    );
    if (!target) throw new Error('no bulk account to follow');
    const before = await scalar(sequelize, 'SELECT count(*) AS n FROM home_feed WHERE account_id = $1', [
      viewer.accountId,
    ]);
    const expected = await scalar(
      sequelize,
      `SELECT least(count(*), 400) AS n FROM statuses WHERE account_id = $1 AND deleted_at IS NULL`,
      [target.id],
    );
    await api(baseUrl, 'POST', `/api/v1/accounts/${target.id}/follow`, viewer.token, {});
    await waitFor(
      sequelize,
      'SELECT count(*) AS n FROM home_feed WHERE account_id = $1',
      [viewer.accountId],
      before + expected,
      60_000,
    );
    // A favourite and a reblog of the newest followed statuses, through the API.
    const recent = await sequelize.query<{ id: string }>(
      `SELECT h.status_id::text AS id FROM home_feed h JOIN statuses s ON s.id = h.status_id
        WHERE h.account_id = $1 AND s.account_id <> $1 AND s.reblog_of_id IS NULL AND s.visibility = 'public'
        ORDER BY h.status_id DESC LIMIT 2`,
      { bind: [viewer.accountId], type: QueryTypes.SELECT },
    );
    if (recent.length < 2) throw new Error('no followed statuses in the home feed');
    await api(baseUrl, 'POST', `/api/v1/statuses/${recent[0]!.id}/favourite`, viewer.token, {});
    await api(baseUrl, 'POST', `/api/v1/statuses/${recent[1]!.id}/reblog`, viewer.token, {});
    await sequelize.query('VACUUM ANALYZE');
  });
  const page = (await fetch(`${baseUrl}/api/v1/timelines/home`, {
    headers: { authorization: `Bearer ${viewer.token}` },
  }).then((response) => response.json())) as unknown[];
  if (!Array.isArray(page) || page.length !== 20) {
    throw new Error(`home timeline answered ${JSON.stringify(page).slice(0, 200)}`);
  }
  console.log(`(seeded in ${((Date.now() - started) / 1000).toFixed(0)} s, own status ${String(own.id)}) `);
  return { headers: { authorization: `Bearer ${viewer.token}` } };
}

/** The author and the followers of the fan-out benchmark. */
export interface FanOutSeed {
  author: Viewer;
  followers: number;
}

/**
 * An author made through the API with `followers` local followers (bulk accounts, every one local,
 * with accepted follows), and some statuses of its own already in their feeds.
 */
export async function seedFanOut(
  { baseUrl, databaseUrl }: SeedContext,
  followers: number = FAN_OUT_FOLLOWERS,
): Promise<FanOutSeed> {
  const author = await microblogViewer(baseUrl, databaseUrl);
  await api(baseUrl, 'POST', '/api/v1/statuses', author.token, { status: 'Hello, followers' });
  await withDatabase(databaseUrl, async (sequelize) => {
    const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
    await run("SET session_replication_role = 'replica'");
    await bulkAccounts(sequelize, baseUrl, `fo${randomBytes(2).toString('hex')}_`, followers, 0);
    await run(
      `INSERT INTO follows (actor_id, target_actor_id, accepted_at, created_at, updated_at)
       SELECT a.id, $1, now(), now(), now() FROM bench_authors a`,
      [author.accountId],
    );
    // Their feeds already hold the author's earlier status, as the fan-out would have written.
    await run(
      `INSERT INTO home_feed (account_id, status_id)
       SELECT f.actor_id, s.id FROM follows f JOIN statuses s ON s.account_id = f.target_actor_id
        WHERE f.target_actor_id = $1
       ON CONFLICT DO NOTHING`,
      [author.accountId],
    );
    await recount(sequelize);
    await run('DROP TABLE bench_authors');
    await run("SET session_replication_role = 'origin'");
    await run('VACUUM ANALYZE');
  });
  return { author, followers };
}

/** The POST /api/v1/statuses scenario: the author with 10,000 followers posts (fan-out off the request). */
export async function seedPostStatus(context: SeedContext): Promise<Seeded> {
  const { author } = await seedFanOut(context);
  return { headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' } };
}

/**
 * `count` local users (accounts, confirmed logins sharing the author's password hash, one `read write`
 * token each of the author's app) following `author`, written in a few statements: the streaming
 * benchmark's audience without 500 sign-ups (each one a password hashing). Their tokens, in order.
 */
export async function seedLocalFollowers(
  databaseUrl: string,
  baseUrl: string,
  author: Viewer,
  count: number,
): Promise<string[]> {
  const tokens = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
  const hashes = tokens.map((token) => createHash('sha256').update(token, 'utf8').digest('hex'));
  await withDatabase(databaseUrl, async (sequelize) => {
    const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
    await run("SET session_replication_role = 'replica'");
    const prefix = `sf${randomBytes(2).toString('hex')}_`;
    await bulkAccounts(sequelize, baseUrl, prefix, count, 0);
    await run(
      `WITH author AS (
         SELECT u.password_hash FROM users u JOIN actors a ON a.user_id = u.id WHERE a.id = $1
       ), made AS (
         INSERT INTO users (email, password_hash, confirmed_at)
         SELECT b.username || '@bench.example', (SELECT password_hash FROM author), now() FROM bench_authors b
         RETURNING id, email
       )
       UPDATE actors a SET user_id = m.id
         FROM made m JOIN bench_authors b ON m.email = b.username || '@bench.example'
        WHERE a.id = b.id`,
      [author.accountId],
    );
    // The stored copy of a token is never read for these (a sign-in of the same app mints a new one).
    await run(
      `INSERT INTO oauth_access_tokens (application_id, user_id, scopes, token_hash, token_encrypted, created_at)
       SELECT (SELECT t.application_id FROM oauth_access_tokens t JOIN actors a ON a.user_id = t.user_id
                WHERE a.id = $1 LIMIT 1),
              a.user_id, 'read write', h.hash, decode(md5(h.hash), 'hex'), now()
         FROM unnest($2::text[]) WITH ORDINALITY AS h(hash, n)
         JOIN bench_authors b ON b.n = h.n JOIN actors a ON a.id = b.id`,
      [author.accountId, hashes],
    );
    await run(
      `INSERT INTO follows (actor_id, target_actor_id, accepted_at, created_at, updated_at)
       SELECT a.id, $1, now(), now(), now() FROM bench_authors a`,
      [author.accountId],
    );
    const made = await scalar(
      sequelize,
      `SELECT count(*) AS n FROM bench_authors b JOIN actors a ON a.id = b.id
         JOIN oauth_access_tokens t ON t.user_id = a.user_id`,
    );
    if (made !== count) throw new Error(`seeded ${made} of ${count} followers with tokens`);
    await recount(sequelize);
    await run('DROP TABLE bench_authors');
    await run("SET session_replication_role = 'origin'");
    await run('VACUUM ANALYZE');
  });
  return tokens;
}
