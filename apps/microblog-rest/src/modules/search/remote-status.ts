import type { Logger } from '@agora/core';
import { sanitizeRemoteHtml, type Federation } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { ObjectResolver } from './search.service.js';

const AS_PUBLIC = new Set(['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']);
/** Objects shown as statuses (issue 16 §5 names Article, Page and Event beside Note). */
const STATUS_TYPES = new Set(['Note', 'Article', 'Page', 'Question', 'Event']);
const MAX_TEXT = 100_000;

export interface RemoteStatusResolverDeps {
  sequelize: Sequelize;
  federation: Federation;
  logger: Logger;
}

/**
 * The object resolver of `resolve=true` for a status URL: a public or unlisted `Note` (Article, Page…)
 * whose author is on the object's own host (CVE-2024-23832) is stored as a remote status of that
 * author, its HTML sanitized (`sanitizeRemoteHtml`), its content warning as plain text. Followers-only
 * and direct objects are never taken this way. Only what search needs (no mentions, tags, media or
 * thread): the ActivityPub statuses module, when it lands, stores the whole object and replaces it.
 */
export function remoteStatusResolver(deps: RemoteStatusResolverDeps): ObjectResolver {
  return async ({ id, type, document }) => {
    if (!STATUS_TYPES.has(type)) return null;
    const [known] = await deps.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM statuses WHERE uri = $1',
      { bind: [id], type: QueryTypes.SELECT },
    );
    if (known) return known.id;
    const authorUri = firstId(document.attributedTo);
    if (authorUri === null || !sameOrigin(authorUri, id)) return null;
    const visibility = audience(document);
    if (visibility === null) return null;
    let accountId: string;
    try {
      const author = await deps.federation.remoteActors.resolve(authorUri);
      if (author.local || author.suspended) return null;
      accountId = author.id;
    } catch (error) {
      deps.logger.info(
        { uri: id, err: error },
        'search: the author of a resolved status could not be fetched',
      );
      return null;
    }
    const content = typeof document.content === 'string' ? document.content.slice(0, MAX_TEXT) : '';
    const summary = typeof document.summary === 'string' ? document.summary.slice(0, MAX_TEXT) : '';
    const url = typeof document.url === 'string' && sameOrigin(document.url, id) ? document.url : null;
    const published = typeof document.published === 'string' ? new Date(document.published) : null;
    const language = languageOf(document.contentMap);
    const [row] = await deps.sequelize.query<{ id: string }>(
      `INSERT INTO statuses (uri, url, account_id, local, content, spoiler_text, sensitive, visibility, language, created_at)
       VALUES ($1, $2, $3, false, $4, $5, $6, $7, $8, coalesce($9::timestamptz, now()))
       ON CONFLICT (uri) WHERE uri IS NOT NULL DO NOTHING
       RETURNING id::text AS id`,
      {
        bind: [
          id,
          url,
          accountId,
          sanitizeRemoteHtml(content),
          plainText(summary),
          document.sensitive === true,
          visibility,
          language,
          published && !Number.isNaN(published.getTime()) && published.getTime() <= Date.now()
            ? published.toISOString()
            : null,
        ],
        type: QueryTypes.SELECT,
      },
    );
    if (row) return row.id;
    // Stored meanwhile by another request.
    const [again] = await deps.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM statuses WHERE uri = $1',
      {
        bind: [id],
        type: QueryTypes.SELECT,
      },
    );
    return again?.id ?? null;
  };
}

function firstId(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first;
  if (typeof first === 'object' && first !== null && typeof (first as { id?: unknown }).id === 'string')
    return (first as { id: string }).id;
  return null;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** public when `to` names the public collection, unlisted when only `cc` does; else not taken. */
function audience(document: Record<string, unknown>): 'public' | 'unlisted' | null {
  const list = (value: unknown) =>
    (Array.isArray(value) ? value : [value]).filter((x) => typeof x === 'string');
  if (list(document.to).some((x) => AS_PUBLIC.has(x as string))) return 'public';
  if (list(document.cc).some((x) => AS_PUBLIC.has(x as string))) return 'unlisted';
  return null;
}

function languageOf(contentMap: unknown): string | null {
  if (typeof contentMap !== 'object' || contentMap === null) return null;
  const [first] = Object.keys(contentMap);
  return first !== undefined && /^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(first) ? first : null;
}

function plainText(html: string): string {
  return sanitizeRemoteHtml(html)
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
