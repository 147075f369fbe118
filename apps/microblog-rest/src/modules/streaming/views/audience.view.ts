import { QueryTypes, type Sequelize } from 'sequelize';
import type { Visibility } from '../../statuses/status.model.js';

/** What deciding a status's audience needs, read in one query (a deleted one keeps its row). */
export interface StatusFacts {
  id: string;
  accountId: string;
  visibility: Visibility;
  local: boolean;
  deleted: boolean;
  reblogOfId: string | null;
  /** The reblogged status's author (a reblog), else null. */
  originalAccountId: string | null;
  hasMedia: boolean;
  /** Lower-cased hashtags of the status (of the original, for a reblog). */
  tags: string[];
  mentionIds: string[];
  /** Lower-cased domains of the author and the reblogged author (remote ones). */
  domains: string[];
}

/** The facts of one status; null when there is no such row. */
export async function statusFacts(sequelize: Sequelize, statusId: string): Promise<StatusFacts | null> {
  const [row] = await sequelize.query<StatusFacts>(
    `SELECT s.id::text AS id, s.account_id::text AS "accountId", s.visibility, s.local,
            s.deleted_at IS NOT NULL AS deleted, s.reblog_of_id::text AS "reblogOfId",
            o.account_id::text AS "originalAccountId", coalesce(o.has_media, s.has_media) AS "hasMedia",
            ARRAY(SELECT lower(t.name) FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
                   WHERE st.status_id = coalesce(o.id, s.id)) AS tags,
            ARRAY(SELECT m.account_id::text FROM mentions m WHERE m.status_id = coalesce(o.id, s.id)) AS "mentionIds",
            ARRAY(SELECT DISTINCT lower(d) FROM unnest(ARRAY[a.domain, oa.domain]) AS d WHERE d IS NOT NULL) AS domains
       FROM statuses s
       JOIN actors a ON a.id = s.account_id
       LEFT JOIN statuses o ON o.id = s.reblog_of_id
       LEFT JOIN actors oa ON oa.id = o.account_id
      WHERE s.id = $1`,
    { bind: [statusId], type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/** Which of `viewerIds` have the status in their home feed (the fan-out wrote it; PK probes). */
export async function homeAudience(
  sequelize: Sequelize,
  statusId: string,
  viewerIds: readonly string[],
): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT account_id::text AS id FROM home_feed WHERE status_id = $1 AND account_id = ANY($2::bigint[])`,
    { bind: [statusId, viewerIds], type: QueryTypes.SELECT },
  );
  return rows.map((row) => row.id);
}

/** Which of `listIds` have the status in their feed. */
export async function listAudience(
  sequelize: Sequelize,
  statusId: string,
  listIds: readonly string[],
): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT list_id::text AS id FROM list_feeds WHERE status_id = $1 AND list_id = ANY($2::bigint[])`,
    { bind: [statusId, listIds], type: QueryTypes.SELECT },
  );
  return rows.map((row) => row.id);
}

/**
 * Which of `viewerIds` must not receive the status (the seed: nothing from accounts or domains the
 * user blocked or muted): a block or unexpired mute of its author, of the reblogged author or of an
 * account it mentions; a block of the viewer by its author; a block of the author's domain.
 */
export async function excludedViewers(
  sequelize: Sequelize,
  facts: StatusFacts,
  viewerIds: readonly string[],
): Promise<Set<string>> {
  const authors = [facts.accountId, ...(facts.originalAccountId === null ? [] : [facts.originalAccountId])];
  const involved = [...new Set([...authors, ...facts.mentionIds])];
  const rows = await sequelize.query<{ id: string }>(
    `SELECT v.id::text AS id FROM unnest($1::bigint[]) AS v (id)
      WHERE EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = v.id AND b.target_account_id = ANY($2::bigint[]))
         OR EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ANY($3::bigint[]) AND b.target_account_id = v.id)
         OR EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = v.id AND m.target_account_id = ANY($2::bigint[])
                      AND (m.expires_at IS NULL OR m.expires_at > now()))
         OR EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = v.id AND d.domain = ANY($4::text[]))`,
    { bind: [viewerIds, involved, authors, facts.domains], type: QueryTypes.SELECT },
  );
  // Their own statuses always reach their authors.
  return new Set(rows.map((row) => row.id).filter((id) => id !== facts.accountId));
}

/**
 * Who had a deleted status in a feed they stream: of `viewerIds`, its author, the author's
 * accepted followers and the accounts it mentioned; of `listIds`, the lists holding its author.
 */
export async function deleteAudience(
  sequelize: Sequelize,
  facts: StatusFacts,
  viewerIds: readonly string[],
  listIds: readonly string[],
): Promise<{ viewers: string[]; lists: string[] }> {
  const [viewers, lists] = await Promise.all([
    viewerIds.length === 0
      ? []
      : sequelize.query<{ id: string }>(
          `SELECT v.id::text AS id FROM unnest($1::bigint[]) AS v (id)
            WHERE v.id = $2
               OR EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = v.id AND f.target_actor_id = $2
                            AND f.accepted_at IS NOT NULL)
               OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = $3 AND m.account_id = v.id)`,
          { bind: [viewerIds, facts.accountId, facts.id], type: QueryTypes.SELECT },
        ),
    listIds.length === 0
      ? []
      : sequelize.query<{ id: string }>(
          `SELECT list_id::text AS id FROM list_accounts WHERE account_id = $1 AND list_id = ANY($2::bigint[])`,
          { bind: [facts.accountId, listIds], type: QueryTypes.SELECT },
        ),
  ]);
  return { viewers: viewers.map((row) => row.id), lists: lists.map((row) => row.id) };
}
