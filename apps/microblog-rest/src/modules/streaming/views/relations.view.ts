import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * What one viewer's streams leave out, held in memory while the viewer has a stream open (ADR 0043):
 * accounts it blocks, accounts that block it, accounts it mutes (until when), domains it blocks.
 */
export interface ViewerRelations {
  blocks: Set<string>;
  blockedBy: Set<string>;
  /** Muted account → when the mute ends (ms since the epoch), or null for never. */
  mutes: Map<string, number | null>;
  domains: Set<string>;
}

export function emptyRelations(): ViewerRelations {
  return { blocks: new Set(), blockedBy: new Set(), mutes: new Map(), domains: new Set() };
}

/** The relations of `accountIds` in one query (four index range scans per account). */
export async function loadRelations(
  sequelize: Sequelize,
  accountIds: readonly string[],
): Promise<Map<string, ViewerRelations>> {
  const result = new Map(accountIds.map((id) => [id, emptyRelations()]));
  if (accountIds.length === 0) return result;
  const rows = await sequelize.query<{ k: 'b' | 'B' | 'm' | 'd'; a: string; t: string; x: Date | null }>(
    `SELECT 'b' AS k, account_id::text AS a, target_account_id::text AS t, NULL::timestamptz AS x
       FROM blocks WHERE account_id = ANY($1::bigint[])
     UNION ALL
     SELECT 'B', target_account_id::text, account_id::text, NULL FROM blocks WHERE target_account_id = ANY($1::bigint[])
     UNION ALL
     SELECT 'm', account_id::text, target_account_id::text, expires_at FROM mutes
      WHERE account_id = ANY($1::bigint[]) AND (expires_at IS NULL OR expires_at > now())
     UNION ALL
     SELECT 'd', account_id::text, domain, NULL FROM account_domain_blocks WHERE account_id = ANY($1::bigint[])`,
    { bind: [accountIds], type: QueryTypes.SELECT },
  );
  for (const { k, a, t, x } of rows) {
    const relations = result.get(a);
    if (!relations) continue;
    if (k === 'b') relations.blocks.add(t);
    else if (k === 'B') relations.blockedBy.add(t);
    else if (k === 'm') relations.mutes.set(t, x === null ? null : new Date(x).getTime());
    else relations.domains.add(t);
  }
  return result;
}

/**
 * Whether a status must not reach this viewer (the seed: nothing from accounts or domains the user
 * blocked or muted): it blocks or mutes (unexpired) an author or a mentioned account, an author
 * blocks it, or it blocks an author's domain. The caller lets authors see their own statuses.
 */
export function excludes(
  relations: ViewerRelations,
  involved: { authors: readonly string[]; mentions: readonly string[]; domains: readonly string[] },
  now: number,
): boolean {
  const { blocks, blockedBy, mutes, domains } = relations;
  if (blocks.size + blockedBy.size + mutes.size + domains.size === 0) return false;
  for (const id of involved.authors) {
    if (blocks.has(id) || blockedBy.has(id) || muted(mutes, id, now)) return true;
  }
  for (const id of involved.mentions) if (blocks.has(id) || muted(mutes, id, now)) return true;
  for (const domain of involved.domains) if (domains.has(domain)) return true;
  return false;
}

function muted(mutes: Map<string, number | null>, id: string, now: number): boolean {
  if (!mutes.has(id)) return false;
  const until = mutes.get(id);
  return until === null || until === undefined || until > now;
}

/**
 * Which of `viewerIds` have something of their own on the status or the status it reblogs (a
 * favourite, a bookmark, a pin, a reblog, a mute of its conversation, a vote in its poll): those
 * are rendered for themselves; every other viewer shares one rendering. Index scans by status.
 */
export async function flaggedViewers(
  sequelize: Sequelize,
  statusIds: readonly string[],
  viewerIds: readonly string[],
): Promise<Set<string>> {
  if (viewerIds.length === 0) return new Set();
  const rows = await sequelize.query<{ id: string }>(
    `SELECT DISTINCT x.account_id::text AS id FROM (
       SELECT account_id FROM favourites WHERE status_id = ANY($1::bigint[])
       UNION ALL SELECT account_id FROM bookmarks WHERE status_id = ANY($1::bigint[])
       UNION ALL SELECT account_id FROM status_pins WHERE status_id = ANY($1::bigint[])
       UNION ALL SELECT account_id FROM statuses WHERE reblog_of_id = ANY($1::bigint[]) AND deleted_at IS NULL
       UNION ALL SELECT m.account_id FROM conversation_mutes m
                   JOIN statuses s ON s.conversation_id = m.conversation_id WHERE s.id = ANY($1::bigint[])
       UNION ALL SELECT v.account_id FROM poll_votes v
                   JOIN polls p ON p.id = v.poll_id WHERE p.status_id = ANY($1::bigint[])
     ) x WHERE x.account_id = ANY($2::bigint[])`,
    { bind: [statusIds, viewerIds], type: QueryTypes.SELECT },
  );
  return new Set(rows.map((row) => row.id));
}
