import type {
  Filter,
  FilterKeyword,
  FilterMatch,
  FilterStatus,
} from '../modules/notifications/filter.service.js';

export interface FilterKeywordJson {
  id: string;
  keyword: string;
  whole_word: boolean;
}

export interface FilterStatusJson {
  id: string;
  status_id: string;
}

/** Mastodon's Filter entity (v2, 4.0): every attribute present. */
export interface FilterJson {
  id: string;
  title: string;
  context: string[];
  expires_at: string | null;
  filter_action: string;
  keywords: FilterKeywordJson[];
  statuses: FilterStatusJson[];
}

/** Mastodon's FilterResult: the filter and why the status matched it. */
export interface FilterResultJson {
  filter: FilterJson;
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}

/** Mastodon's V1::Filter: one keyword of a filter, as the v1 API shows it. */
export interface V1FilterJson {
  id: string;
  phrase: string;
  context: string[];
  whole_word: boolean;
  expires_at: string | null;
  irreversible: boolean;
}

export function serializeFilterKeyword(keyword: FilterKeyword): FilterKeywordJson {
  return { id: keyword.id, keyword: keyword.keyword, whole_word: keyword.wholeWord };
}

export function serializeFilterStatus(status: FilterStatus): FilterStatusJson {
  return { id: status.id, status_id: status.statusId };
}

export function serializeFilter(filter: Filter): FilterJson {
  return {
    id: filter.id,
    title: filter.title,
    context: filter.context,
    expires_at: filter.expiresAt === null ? null : filter.expiresAt.toISOString(),
    filter_action: filter.action,
    keywords: filter.keywords.map(serializeFilterKeyword),
    statuses: filter.statuses.map(serializeFilterStatus),
  };
}

export function serializeFilterResult(match: FilterMatch): FilterResultJson {
  return {
    filter: serializeFilter(match.filter),
    keyword_matches: match.keywordMatches,
    status_matches: match.statusMatches,
  };
}

/** The v1 view of one keyword of a filter (its id is the keyword's). */
export function serializeV1Filter(filter: Filter, keyword: FilterKeyword): V1FilterJson {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: filter.context,
    whole_word: keyword.wholeWord,
    expires_at: filter.expiresAt === null ? null : filter.expiresAt.toISOString(),
    irreversible: filter.action === 'hide',
  };
}
