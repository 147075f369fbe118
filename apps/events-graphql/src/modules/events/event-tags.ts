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
