import { QueryTypes, type Sequelize } from 'sequelize';
import { visibleTo } from '../statuses/status.model.js';
import { RenderedStatuses } from '../statuses/views/rendered-statuses.js';
import { HomePageCache, type KeptHomePage } from './home-page-cache.js';
import { pageClauses, type PageRequest } from '../../http/link-pagination.js';
import { homePageStillTrue } from './views/home-page-token.view.js';
import { readHomePage, type HomePage } from './views/home-page.view.js';

export interface PublicTimelineFilter {
  local: boolean;
  remote: boolean;
  onlyMedia: boolean;
}

export interface TagTimelineFilter extends PublicTimelineFilter {
  /** The hashtag of the path and `any[]`: a status has at least one of them. */
  any: string[];
  /** `all[]`: a status has every one of them. */
  all: string[];
  /** `none[]`: a status has none of them. */
  none: string[];
}

/**
 * The ids of a timeline's page, newest first. Home reads the account's feed (written on post by
 * the fan-out job, so it is one index scan) with everything its rendering needs in the same
 * statement (`views/home-page.view.ts`); public and tag timelines read public, original statuses
 * through partial indexes. Hydration is the statuses view's.
 */
export class TimelineService {
  /**
   * This process's rendered statuses and accounts, checked against their stamps on each page (ADR
   * 0039): the statuses service's, so every list of statuses shares them (ADR 0047).
   */
  readonly rendered: RenderedStatuses;

  /** Whole home pages kept in this process, each answered again only while its token holds (ADR 0049). */
  readonly homePages = new HomePageCache();

  constructor(private readonly deps: { sequelize: Sequelize; rendered?: RenderedStatuses }) {
    this.rendered = deps.rendered ?? new RenderedStatuses();
  }

  /**
   * The page kept for this request if it is still exactly what the home shows (its token read in
   * one single-row statement), else undefined (and it is forgotten).
   */
  async keptHomePage(userId: string, page: PageRequest): Promise<KeptHomePage | undefined> {
    const kept = this.homePages.get(userId, page);
    if (kept === undefined) return undefined;
    if (await homePageStillTrue(this.deps.sequelize, userId, kept.source)) return kept;
    this.homePages.forget(userId, page, kept);
    return undefined;
  }

  /**
   * GET /api/v1/timelines/home as one statement: the user's account, the page's ids and what a cached rendering needs to be true for it (stamps, counters, the viewer's
   * flags). Null when the user's login or account is not usable.
   */
  homePage(userId: string, page: PageRequest): Promise<HomePage | null> {
    return readHomePage(this.deps.sequelize, userId, page);
  }

  /** GET /api/v1/timelines/public: public original statuses (local, remote, with media). */
  public(filter: PublicTimelineFilter, page: PageRequest): Promise<string[]> {
    const paged = pageClauses('s.id', page, 1);
    return this.ids(
      `SELECT s.id::text AS id FROM statuses s
        WHERE s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
          ${originFilter(filter)} AND ${paged.where}
        ORDER BY ${paged.order} LIMIT ${page.limit}`,
      paged.values,
      paged.ascending,
    );
  }

  /** GET /api/v1/timelines/tag/:hashtag with any[], all[], none[]. */
  tag(filter: TagTimelineFilter, page: PageRequest): Promise<string[]> {
    const lower = (tags: string[]) => [...new Set(tags.map((tag) => tag.toLowerCase()))];
    const paged = pageClauses('s.id', page, 4);
    const has = (param: string) =>
      `SELECT 1 FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
        WHERE st.status_id = s.id AND lower(t.name) = ANY(${param}::text[])`;
    const all = lower(filter.all);
    return this.ids(
      `SELECT s.id::text AS id FROM statuses s
        WHERE s.id IN (SELECT st.status_id FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
                        WHERE lower(t.name) = ANY($1::text[]))
          AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
          AND (cardinality($2::text[]) = 0 OR (
                SELECT count(DISTINCT lower(t.name)) FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
                 WHERE st.status_id = s.id AND lower(t.name) = ANY($2::text[])) = cardinality($2::text[]))
          AND NOT EXISTS (${has('$3')})
          ${originFilter(filter)} AND ${paged.where}
        ORDER BY ${paged.order} LIMIT ${page.limit}`,
      [lower(filter.any), all, lower(filter.none), ...paged.values],
      paged.ascending,
    );
  }

  /**
   * GET /api/v1/favourites and /bookmarks: the account's marked statuses it may still see, newest
   * mark first, paged by the mark's internal id (given back as `cursor`, for the Link header only).
   */
  async marked(
    table: 'favourites' | 'bookmarks',
    accountId: string,
    page: PageRequest,
  ): Promise<Array<{ id: string; cursor: string }>> {
    const paged = pageClauses('x.id', page, 2);
    const rows = await this.deps.sequelize.query<{ id: string; cursor: string }>(
      `SELECT x.status_id::text AS id, x.id::text AS cursor FROM ${table} x
         JOIN statuses s ON s.id = x.status_id AND s.deleted_at IS NULL
        WHERE x.account_id = $1 AND ${visibleTo('$1::bigint')} AND ${paged.where}
        ORDER BY ${paged.order} LIMIT ${page.limit}`,
      { bind: [accountId, ...paged.values], type: QueryTypes.SELECT },
    );
    return paged.ascending ? rows.reverse() : rows;
  }

  private async ids(sql: string, bind: unknown[], ascending: boolean): Promise<string[]> {
    const rows = await this.deps.sequelize.query<{ id: string }>(sql, { bind, type: QueryTypes.SELECT });
    const ids = rows.map((row) => row.id);
    return ascending ? ids.reverse() : ids;
  }
}

function originFilter(filter: PublicTimelineFilter): string {
  const parts: string[] = [];
  if (filter.local && !filter.remote) parts.push('AND s.local');
  if (filter.remote && !filter.local) parts.push('AND NOT s.local');
  if (filter.onlyMedia) parts.push('AND s.has_media');
  return parts.join(' ');
}
