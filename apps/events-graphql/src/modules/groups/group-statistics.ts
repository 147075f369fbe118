import { QueryTypes, type Sequelize } from 'sequelize';
import type { StatisticsService } from '../statistics/statistics.service.js';

/** The groups module's counters of the instance `statistics`: groups known, and this instance's own. */
export function contributeGroupStatistics(statistics: StatisticsService, sequelize: Sequelize): void {
  for (const [key, where] of [
    ['numberOfGroups', ''],
    ['numberOfLocalGroups', 'AND domain IS NULL'],
  ] as const) {
    statistics.contribute(key, async () => {
      const [row] = await sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM actors WHERE type = 'Group' AND suspended_at IS NULL ${where}`,
        { type: QueryTypes.SELECT },
      );
      return row?.count ?? 0;
    });
  }
}
