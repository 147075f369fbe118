import { BadInput, NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { StatusView } from '../statuses/views/status.view.js';

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];
export const FILTER_ACTIONS = ['warn', 'hide', 'blur'] as const;
export type FilterAction = (typeof FILTER_ACTIONS)[number];

const RECORD_NOT_FOUND = 'Record not found';
/** Mastodon's limits on a filter's texts (CVE-2026-23963 was their absence). */
export const FILTER_LIMITS = { title: 256, keyword: 512, keywords: 500 } as const;

export interface FilterKeyword {
  id: string;
  keyword: string;
  wholeWord: boolean;
}

export interface FilterStatus {
  id: string;
  statusId: string;
}

/** A filter with its keywords and statuses (Mastodon's Filter, v2). */
export interface Filter {
  id: string;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  expiresAt: Date | null;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
}

/** Why a status matched a filter (Mastodon's FilterResult). */
export interface FilterMatch {
  filter: Filter;
  keywordMatches: string[] | null;
  statusMatches: string[] | null;
}

export interface KeywordInput {
  id?: string | undefined;
  keyword?: string | undefined;
  wholeWord?: boolean | undefined;
  destroy?: boolean | undefined;
}

export interface FilterInput {
  title?: string | undefined;
  context?: FilterContext[] | undefined;
  action?: FilterAction | undefined;
  /** Seconds from now; null: never ends; undefined: unchanged (on update). */
  expiresIn?: number | null | undefined;
  keywords?: KeywordInput[] | undefined;
}

/** What a read applies: the viewer's matches for a status, and whether its context hides it. */
export interface StatusFilterMatcher {
  match(view: StatusView): { matches: FilterMatch[]; hidden: boolean };
}

const NO_MATCHER: StatusFilterMatcher = { match: () => ({ matches: [], hidden: false }) };

/**
 * The viewer's content filters (v2 filters with keywords and statuses; v1 filters are their
 * keywords). Reads apply them: `matcher` loads the viewer's active filters once per request (two
 * queries) and matches each status's text (its spoiler text, content without markup, and media
 * descriptions) against the keywords, as whole words when asked.
 */
export class FilterService {
  private readonly changeListeners: Array<(accountId: string) => Promise<void>> = [];

  constructor(private readonly deps: { sequelize: Sequelize }) {}

  /** Told once an account's filters changed (committed): streaming sends `filters_changed`. */
  addChangeListener(listener: (accountId: string) => Promise<void>): void {
    this.changeListeners.push(listener);
  }

  private async changed(accountId: string): Promise<void> {
    for (const listener of this.changeListeners) await listener(accountId);
  }

  /** GET /api/v2/filters: the viewer's filters, oldest first (expired ones too, as Mastodon lists them). */
  async list(accountId: string): Promise<Filter[]> {
    return this.load(accountId, null, false);
  }

  /** GET /api/v2/filters/:id. Errors: NotFound. */
  async get(accountId: string, id: string): Promise<Filter> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [filter] = await this.load(accountId, id, false);
    if (!filter) throw new NotFound(RECORD_NOT_FOUND);
    return filter;
  }

  /** POST /api/v2/filters. Errors: BadInput (no title, no or unknown context, a blank keyword). */
  async create(accountId: string, input: FilterInput): Promise<Filter> {
    const title = (input.title ?? '').trim();
    if (title === '') throw blank('title', 'Title');
    if (title.length > FILTER_LIMITS.title) throw tooLong('title', 'Title', FILTER_LIMITS.title);
    if (!input.context || input.context.length === 0) throw blank('context', 'Context');
    const { sequelize } = this.deps;
    const id = await sequelize.transaction(async (transaction) => {
      const [row] = await sequelize.query<{ id: string }>(
        `INSERT INTO filters (account_id, title, context, filter_action, expires_at)
         VALUES ($1, $2, $3::text[], $4,
                 CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $5::integer) END)
         RETURNING id::text AS id`,
        {
          bind: [accountId, title, input.context, input.action ?? 'warn', input.expiresIn ?? null],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      await this.saveKeywords(row!.id, input.keywords ?? [], transaction);
      return row!.id;
    });
    await this.changed(accountId);
    return this.get(accountId, id);
  }

  /** PUT /api/v2/filters/:id: the values named; keywords added, changed (`id`) or removed (`_destroy`). */
  async update(accountId: string, id: string, input: FilterInput): Promise<Filter> {
    const current = await this.get(accountId, id);
    const title = input.title === undefined ? current.title : input.title.trim();
    if (title === '') throw blank('title', 'Title');
    if (title.length > FILTER_LIMITS.title) throw tooLong('title', 'Title', FILTER_LIMITS.title);
    const context = input.context ?? current.context;
    if (context.length === 0) throw blank('context', 'Context');
    const { sequelize } = this.deps;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(
        `UPDATE filters SET title = $2, context = $3::text[], filter_action = $4,
                expires_at = CASE WHEN NOT $5::boolean THEN expires_at WHEN $6::integer IS NULL THEN NULL
                                  ELSE now() + make_interval(secs => $6::integer) END,
                updated_at = now()
          WHERE id = $1`,
        {
          bind: [
            current.id,
            title,
            context,
            input.action ?? current.action,
            input.expiresIn !== undefined,
            input.expiresIn ?? null,
          ],
          transaction,
        },
      );
      await this.saveKeywords(current.id, input.keywords ?? [], transaction);
    });
    await this.changed(accountId);
    return this.get(accountId, current.id);
  }

  /** DELETE /api/v2/filters/:id. Errors: NotFound. */
  async remove(accountId: string, id: string): Promise<void> {
    const filter = await this.get(accountId, id);
    await this.deps.sequelize.query('DELETE FROM filters WHERE id = $1', { bind: [filter.id] });
    await this.changed(accountId);
  }

  /** POST /api/v2/filters/:id/keywords. Errors: NotFound, BadInput. */
  async addKeyword(accountId: string, filterId: string, input: KeywordInput): Promise<FilterKeyword> {
    const filter = await this.get(accountId, filterId);
    const { sequelize } = this.deps;
    const keywordId = await sequelize.transaction(async (transaction) => {
      const [saved] = await this.saveKeywords(filter.id, [{ ...input, id: undefined }], transaction);
      return saved!;
    });
    await this.changed(accountId);
    return this.keyword(accountId, keywordId);
  }

  /** GET /api/v2/filters/keywords/:id. Errors: NotFound. */
  async keyword(accountId: string, id: string): Promise<FilterKeyword> {
    const [row] = await this.keywordRows(accountId, id);
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  /** PUT /api/v2/filters/keywords/:id. Errors: NotFound, BadInput. */
  async updateKeyword(accountId: string, id: string, input: KeywordInput): Promise<FilterKeyword> {
    const current = await this.keyword(accountId, id);
    const keyword = input.keyword === undefined ? current.keyword : input.keyword.trim();
    checkKeyword(keyword);
    await this.deps.sequelize.query(
      'UPDATE filter_keywords SET keyword = $2, whole_word = $3, updated_at = now() WHERE id = $1',
      { bind: [current.id, keyword, input.wholeWord ?? current.wholeWord] },
    );
    await this.changed(accountId);
    return this.keyword(accountId, current.id);
  }

  /** A v1 filter: one keyword (by its id) with the filter it belongs to. Errors: NotFound. */
  async keywordWithFilter(
    accountId: string,
    id: string,
  ): Promise<{ filter: Filter; keyword: FilterKeyword }> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<{ filterId: string }>(
      `SELECT k.filter_id::text AS "filterId" FROM filter_keywords k JOIN filters f ON f.id = k.filter_id
        WHERE k.id = $1 AND f.account_id = $2`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    const filter = await this.get(accountId, row.filterId);
    const keyword = filter.keywords.find((candidate) => candidate.id === id);
    if (!keyword) throw new NotFound(RECORD_NOT_FOUND);
    return { filter, keyword };
  }

  /** DELETE /api/v2/filters/keywords/:id. Errors: NotFound. */
  async removeKeyword(accountId: string, id: string): Promise<void> {
    const current = await this.keyword(accountId, id);
    await this.deps.sequelize.query('DELETE FROM filter_keywords WHERE id = $1', { bind: [current.id] });
    await this.changed(accountId);
  }

  /** POST /api/v2/filters/:id/statuses: a status the viewer may name. Errors: NotFound. */
  async addStatus(accountId: string, filterId: string, statusId: string | undefined): Promise<FilterStatus> {
    const filter = await this.get(accountId, filterId);
    if (statusId === undefined || !isRowId(statusId)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<{ id: string }>(
      `INSERT INTO filter_statuses (filter_id, status_id)
       SELECT $1, s.id FROM statuses s WHERE s.id = $2 AND s.deleted_at IS NULL
       ON CONFLICT (filter_id, status_id) DO UPDATE SET filter_id = EXCLUDED.filter_id
       RETURNING id::text AS id`,
      { bind: [filter.id, statusId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    await this.changed(accountId);
    return this.filterStatus(accountId, row.id);
  }

  /** GET /api/v2/filters/statuses/:id. Errors: NotFound. */
  async filterStatus(accountId: string, id: string): Promise<FilterStatus> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<FilterStatus>(
      `SELECT fs.id::text AS id, fs.status_id::text AS "statusId"
         FROM filter_statuses fs JOIN filters f ON f.id = fs.filter_id
        WHERE fs.id = $1 AND f.account_id = $2`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  /** DELETE /api/v2/filters/statuses/:id. Errors: NotFound. */
  async removeStatus(accountId: string, id: string): Promise<void> {
    const current = await this.filterStatus(accountId, id);
    await this.deps.sequelize.query('DELETE FROM filter_statuses WHERE id = $1', { bind: [current.id] });
    await this.changed(accountId);
  }

  /**
   * The viewer's active filters as a matcher for the statuses of one read in `context`: every
   * matching filter is reported (clients choose by context, as Mastodon answers), and a `hide`
   * filter of this context takes the status out.
   */
  async matcher(viewerId: string | null, context: FilterContext): Promise<StatusFilterMatcher> {
    if (viewerId === null) return NO_MATCHER;
    const filters = await this.load(viewerId, null, true);
    if (filters.length === 0) return NO_MATCHER;
    const compiled = filters.map((filter) => ({
      filter,
      keywords: filter.keywords.map((keyword) => ({
        keyword: keyword.keyword,
        pattern: keywordPattern(keyword),
      })),
      statuses: new Set(filter.statuses.map((status) => status.statusId)),
    }));
    return {
      match(view) {
        const target = view.reblog ?? view;
        const text = searchableText(target);
        const matches: FilterMatch[] = [];
        let hidden = false;
        for (const entry of compiled) {
          const keywordMatches = entry.keywords
            .filter((keyword) => keyword.pattern.test(text))
            .map((keyword) => keyword.keyword);
          const statusMatches = [target.row.id, view.row.id].filter((id) => entry.statuses.has(id));
          if (keywordMatches.length === 0 && statusMatches.length === 0) continue;
          matches.push({
            filter: entry.filter,
            keywordMatches: keywordMatches.length > 0 ? keywordMatches : null,
            statusMatches: statusMatches.length > 0 ? [...new Set(statusMatches)] : null,
          });
          if (entry.filter.action === 'hide' && entry.filter.context.includes(context)) hidden = true;
        }
        return { matches, hidden };
      },
    };
  }

  /** The account's filters (one, with `id`) with keywords and statuses, in three queries. */
  private async load(accountId: string, id: string | null, activeOnly: boolean): Promise<Filter[]> {
    const { sequelize } = this.deps;
    const rows = await sequelize.query<{
      id: string;
      title: string;
      context: FilterContext[];
      action: FilterAction;
      expiresAt: Date | null;
    }>(
      `SELECT id::text AS id, title, context, filter_action AS action, expires_at AS "expiresAt"
         FROM filters
        WHERE account_id = $1 AND ($2::bigint IS NULL OR id = $2::bigint)
          AND (NOT $3::boolean OR expires_at IS NULL OR expires_at > now())
        ORDER BY id`,
      { bind: [accountId, id, activeOnly], type: QueryTypes.SELECT },
    );
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [keywords, statuses] = await Promise.all([
      sequelize.query<FilterKeyword & { filterId: string }>(
        `SELECT id::text AS id, filter_id::text AS "filterId", keyword, whole_word AS "wholeWord"
           FROM filter_keywords WHERE filter_id = ANY($1::bigint[]) ORDER BY id`,
        { bind: [ids], type: QueryTypes.SELECT },
      ),
      sequelize.query<FilterStatus & { filterId: string }>(
        `SELECT id::text AS id, filter_id::text AS "filterId", status_id::text AS "statusId"
           FROM filter_statuses WHERE filter_id = ANY($1::bigint[]) ORDER BY id`,
        { bind: [ids], type: QueryTypes.SELECT },
      ),
    ]);
    return rows.map((row) => ({
      ...row,
      expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
      keywords: keywords
        .filter((keyword) => keyword.filterId === row.id)
        .map(({ filterId: _filterId, ...keyword }) => keyword),
      statuses: statuses
        .filter((status) => status.filterId === row.id)
        .map(({ filterId: _filterId, ...status }) => status),
    }));
  }

  private async keywordRows(accountId: string, id: string): Promise<FilterKeyword[]> {
    if (!isRowId(id)) return [];
    return this.deps.sequelize.query<FilterKeyword>(
      `SELECT k.id::text AS id, k.keyword, k.whole_word AS "wholeWord"
         FROM filter_keywords k JOIN filters f ON f.id = k.filter_id
        WHERE k.id = $1 AND f.account_id = $2`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
  }

  /** Adds, changes or removes a filter's keywords; returns the ids of those added or changed. */
  private async saveKeywords(
    filterId: string,
    inputs: KeywordInput[],
    transaction: Transaction,
  ): Promise<string[]> {
    const { sequelize } = this.deps;
    const saved: string[] = [];
    for (const input of inputs) {
      if (input.id !== undefined) {
        if (!isRowId(input.id)) throw new NotFound(RECORD_NOT_FOUND);
        if (input.destroy) {
          await sequelize.query('DELETE FROM filter_keywords WHERE id = $1 AND filter_id = $2', {
            bind: [input.id, filterId],
            transaction,
          });
          continue;
        }
        const keyword = input.keyword?.trim();
        if (keyword !== undefined) checkKeyword(keyword);
        const rows = await sequelize.query<{ id: string }>(
          `UPDATE filter_keywords SET keyword = coalesce($3, keyword), whole_word = coalesce($4, whole_word),
                  updated_at = now()
            WHERE id = $1 AND filter_id = $2 RETURNING id::text AS id`,
          {
            bind: [input.id, filterId, keyword ?? null, input.wholeWord ?? null],
            type: QueryTypes.SELECT,
            transaction,
          },
        );
        if (rows.length === 0) throw new NotFound(RECORD_NOT_FOUND);
        saved.push(rows[0]!.id);
        continue;
      }
      if (input.destroy) continue;
      const keyword = (input.keyword ?? '').trim();
      checkKeyword(keyword);
      const [row] = await sequelize.query<{ id: string }>(
        `INSERT INTO filter_keywords (filter_id, keyword, whole_word) VALUES ($1, $2, $3)
         RETURNING id::text AS id`,
        { bind: [filterId, keyword, input.wholeWord ?? true], type: QueryTypes.SELECT, transaction },
      );
      saved.push(row!.id);
    }
    const [count] = await sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM filter_keywords WHERE filter_id = $1',
      { bind: [filterId], type: QueryTypes.SELECT, transaction },
    );
    if ((count?.n ?? 0) > FILTER_LIMITS.keywords)
      throw new BadInput(`Validation failed: Keywords are too many (maximum is ${FILTER_LIMITS.keywords})`);
    return saved;
  }
}

function blank(field: string, label: string): BadInput {
  return new BadInput(`Validation failed: ${label} can't be blank`, {
    fields: { [field]: ["can't be blank"] },
  });
}

function tooLong(field: string, label: string, max: number): BadInput {
  const message = `is too long (maximum is ${max} characters)`;
  return new BadInput(`Validation failed: ${label} ${message}`, { fields: { [field]: [message] } });
}

function checkKeyword(keyword: string): void {
  if (keyword === '') throw blank('keyword', 'Keyword');
  if (keyword.length > FILTER_LIMITS.keyword) throw tooLong('keyword', 'Keyword', FILTER_LIMITS.keyword);
}

const WORD = '[\\p{L}\\p{N}_]';

/** A keyword as a case-insensitive pattern; whole words are bounded where the keyword starts or ends with a word character. */
export function keywordPattern(keyword: { keyword: string; wholeWord: boolean }): RegExp {
  // Only the pattern syntax characters: under the `u` flag any other escaped character (a hyphen, say)
  // is a syntax error, and a keyword like "e-mail" would make every filtered page fail.
  const escaped = keyword.keyword.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (!keyword.wholeWord) return new RegExp(escaped, 'iu');
  const start = new RegExp(`^${WORD}`, 'u').test(keyword.keyword) ? `(?<!${WORD})` : '';
  const end = new RegExp(`${WORD}$`, 'u').test(keyword.keyword) ? `(?!${WORD})` : '';
  return new RegExp(`${start}${escaped}${end}`, 'iu');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };

/** What a filter reads of a status: spoiler text, content without markup, media descriptions. */
function searchableText(view: StatusView): string {
  const content = view.row.content
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos);/g, (_match, name: string) => ENTITIES[name] ?? '');
  return [view.row.spoilerText, content, ...view.media.map((media) => media.description ?? '')]
    .filter((part) => part !== '')
    .join('\n\n');
}
