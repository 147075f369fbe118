import { QueryTypes, type Sequelize } from 'sequelize';

/** A poll with what its entity shows, for one viewer (DTO of this view). */
export interface PollView {
  id: string;
  statusId: string;
  accountId: string;
  options: string[];
  tallies: number[];
  multiple: boolean;
  hideTotals: boolean;
  votesCount: number;
  votersCount: number;
  expiresAt: Date | null;
  expired: boolean;
  /** The viewer's part; null for anonymous callers. */
  viewer: { voted: boolean; ownVotes: number[] } | null;
}

interface PollRow extends Omit<PollView, 'viewer' | 'expiresAt'> {
  expiresAt: Date | string | null;
  ownVotes: number[] | null;
}

const POLL_SELECT = `SELECT p.id::text AS id, p.status_id::text AS "statusId", p.account_id::text AS "accountId",
         p.options, p.tallies, p.multiple, p.hide_totals AS "hideTotals", p.votes_count AS "votesCount",
         p.voters_count AS "votersCount", p.expires_at AS "expiresAt",
         (p.expires_at IS NOT NULL AND p.expires_at <= now()) AS expired,
         CASE WHEN $2::bigint IS NULL THEN NULL
              ELSE ARRAY(SELECT v.choice FROM poll_votes v
                          WHERE v.poll_id = p.id AND v.account_id = $2::bigint ORDER BY v.choice) END AS "ownVotes"
    FROM polls p`;

/** The polls of a page of statuses, by status id: one query whatever the page's length. */
export async function loadPollsByStatus(
  sequelize: Sequelize,
  statusIds: readonly string[],
  viewerId: string | null,
): Promise<Map<string, PollView>> {
  if (statusIds.length === 0) return new Map();
  const rows = await sequelize.query<PollRow>(`${POLL_SELECT} WHERE p.status_id = ANY($1::bigint[])`, {
    bind: [statusIds, viewerId],
    type: QueryTypes.SELECT,
  });
  return new Map(rows.map((row) => [row.statusId, toView(row, viewerId)]));
}

/** One poll by its id, or null. */
export async function loadPoll(
  sequelize: Sequelize,
  pollId: string,
  viewerId: string | null,
): Promise<PollView | null> {
  const [row] = await sequelize.query<PollRow>(`${POLL_SELECT} WHERE p.id = $1::bigint`, {
    bind: [pollId, viewerId],
    type: QueryTypes.SELECT,
  });
  return row ? toView(row, viewerId) : null;
}

function toView({ ownVotes, expiresAt, ...row }: PollRow, viewerId: string | null): PollView {
  return {
    ...row,
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
    // The reference counts the author as having voted (they may not vote in their own poll).
    viewer:
      viewerId === null
        ? null
        : { voted: viewerId === row.accountId || (ownVotes ?? []).length > 0, ownVotes: ownVotes ?? [] },
  };
}
