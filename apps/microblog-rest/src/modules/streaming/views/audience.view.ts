import { preparedStatement } from '@agora/db';
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
  const [row] = await FACTS_STATEMENT.rows(sequelize, [statusId]);
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

/** Read for every new status the streaming server announces: a named statement. */
const FACTS_STATEMENT = preparedStatement<StatusFacts, [statusId: string]>({
  name: 'streaming_status_facts',
  text: `SELECT s.id::text AS id, s.account_id::text AS "accountId", s.visibility, s.local,
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
});
