import type { Sequelize, Transaction } from 'sequelize';

/** Longer hashtags are ignored, as the reference ignores overly long ones. */
const HASHTAG_MAX = 40;
const HASHTAG = /(?:^|[^\p{L}\p{N}_&#/])#([\p{L}\p{N}_]+)/gu;

/** A tag's slug: its title lower-cased, runs of other characters made one dash. */
export function tagSlug(title: string): string {
  return title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** The hashtags of an HTML text (tags stripped first, so `href="#x"` and entities are not tags). */
export function hashtagsOf(html: string): string[] {
  const text = html.replace(/<[^>]*>/g, ' ');
  return [...text.matchAll(HASHTAG)].map((match) => match[1]!).filter((tag) => tag.length <= HASHTAG_MAX);
}

/** Given tags then hashtags, one per slug, the first spelling kept (`Hello`, `hello` → `Hello`). */
export function eventTags(
  given: readonly string[],
  description: string,
): Array<{ slug: string; title: string }> {
  const bySlug = new Map<string, string>();
  for (const title of [...given.map((tag) => tag.trim()), ...hashtagsOf(description)]) {
    const slug = tagSlug(title);
    if (slug !== '' && !bySlug.has(slug)) bySlug.set(slug, title);
  }
  return [...bySlug].map(([slug, title]) => ({ slug, title }));
}

/** The tables that tag something: the join table and its owner column (fixed names, never input). */
const TAGGED = {
  event: { table: 'events_tags', column: 'event_id' },
  post: { table: 'posts_tags', column: 'post_id' },
} as const;

/**
 * Replaces the tags of an event or a post with `tags` (already one per slug): missing tags are
 * created, an existing tag keeps its first title. Two statements, inside the caller's transaction.
 */
export async function setTagsOf(
  sequelize: Sequelize,
  owner: keyof typeof TAGGED,
  ownerId: string,
  tags: ReadonlyArray<{ slug: string; title: string }>,
  transaction: Transaction,
): Promise<void> {
  const { table, column } = TAGGED[owner];
  await sequelize.query(`DELETE FROM ${table} WHERE ${column} = :ownerId`, {
    transaction,
    replacements: { ownerId },
  });
  if (tags.length === 0) return;
  // The no-op update makes RETURNING give an existing tag's id too.
  await sequelize.query(
    `WITH given AS (
       SELECT * FROM unnest(ARRAY[:slugs]::text[], ARRAY[:titles]::text[]) AS g(slug, title)
     ), upserted AS (
       INSERT INTO tags (slug, title) SELECT slug, title FROM given
       ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug RETURNING id
     )
     INSERT INTO ${table} (${column}, tag_id) SELECT :ownerId, id FROM upserted`,
    {
      transaction,
      replacements: { ownerId, slugs: tags.map((tag) => tag.slug), titles: tags.map((tag) => tag.title) },
    },
  );
}
