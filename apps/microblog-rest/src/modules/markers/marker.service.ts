import { QueryTypes, type Sequelize } from 'sequelize';

/** The timelines a marker is kept for (Mastodon's two). */
export const MARKER_TIMELINES = ['home', 'notifications'] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

export interface MarkerView {
  timeline: MarkerTimeline;
  lastReadId: string;
  version: number;
  updatedAt: Date;
}

/**
 * Where an account stopped reading, per timeline, shared by its clients. Each save is one upsert
 * that bumps `version`, so concurrent saves from two clients both land, in order.
 */
export class MarkerService {
  constructor(private readonly deps: { sequelize: Sequelize }) {}

  /** GET /api/v1/markers: the asked timelines that have a marker. */
  async get(accountId: string, timelines: readonly MarkerTimeline[]): Promise<MarkerView[]> {
    if (timelines.length === 0) return [];
    return this.deps.sequelize.query<MarkerView>(
      `SELECT timeline, last_read_id::text AS "lastReadId", version, updated_at AS "updatedAt"
         FROM markers WHERE account_id = $1 AND timeline = ANY($2::text[]) ORDER BY timeline`,
      { bind: [accountId, [...new Set(timelines)]], type: QueryTypes.SELECT },
    );
  }

  /** POST /api/v1/markers: saves the given positions in one transaction; answers the saved markers. */
  async save(accountId: string, positions: Partial<Record<MarkerTimeline, string>>): Promise<MarkerView[]> {
    const { sequelize } = this.deps;
    const entries = MARKER_TIMELINES.flatMap((timeline) => {
      const id = positions[timeline];
      return id === undefined ? [] : [{ timeline, id }];
    });
    if (entries.length === 0) return [];
    return sequelize.query<MarkerView>(
      `INSERT INTO markers (account_id, timeline, last_read_id)
       SELECT $1, t.timeline, t.id FROM unnest($2::text[], $3::bigint[]) AS t (timeline, id)
       ON CONFLICT (account_id, timeline) DO UPDATE
         SET last_read_id = EXCLUDED.last_read_id, version = markers.version + 1, updated_at = now()
       RETURNING timeline, last_read_id::text AS "lastReadId", version, updated_at AS "updatedAt"`,
      {
        bind: [accountId, entries.map((entry) => entry.timeline), entries.map((entry) => entry.id)],
        type: QueryTypes.SELECT,
      },
    );
  }
}
