import { tokenize } from 'linkifyjs';
import { characterCount, escapeHtml } from '../accounts/profile-text.js';

/** A mention as written: `@name` (local) or `@name@domain`. */
export interface MentionCandidate {
  username: string;
  domain: string | null;
}

/** A mentioned account the text links to. */
export interface LinkedMention {
  username: string;
  domain: string | null;
  url: string;
}

/** One piece of a status's text: plain text, a link, a mention or a hashtag. */
type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'url'; text: string; href: string }
  | { kind: 'mention'; text: string; username: string; domain: string | null }
  | { kind: 'hashtag'; text: string; name: string };

// `@name` or `@name@domain` not preceded by a word character or a slash (so e-mail addresses and
// `https://host/@name` are not mentions); names as the reference allows them.
const MENTION =
  /(?<![\p{L}\p{N}_/@])@([a-z0-9_]+(?:[a-z0-9_.-]*[a-z0-9_])?)(?:@([\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*(?::\d+)?))?/giu;
// `#name` not preceded by a word character, with at least one letter or underscore.
const HASHTAG = /(?<![\p{L}\p{N}_/#&])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)/gu;
const MAX_TAG_LENGTH = 100;

/**
 * Splits a paragraph into segments: links are found by linkifyjs (only http and https, as the
 * reference links them), mentions and hashtags in the text between them.
 */
function segmentsOf(paragraph: string): Segment[] {
  const segments: Segment[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') segments.push(...mentionsAndTags(plain));
    plain = '';
  };
  for (const token of tokenize(paragraph)) {
    const text = token.toString();
    if (token.t === 'url' && /^https?:\/\//i.test(text)) {
      flush();
      segments.push({ kind: 'url', text, href: token.toHref() });
    } else {
      plain += text;
    }
  }
  flush();
  return segments;
}

function mentionsAndTags(text: string): Segment[] {
  type Found = { index: number; length: number; segment: Segment };
  const found: Found[] = [];
  for (const match of text.matchAll(MENTION)) {
    const [whole, username = '', domain] = match;
    found.push({
      index: match.index,
      length: whole.length,
      segment: { kind: 'mention', text: whole, username, domain: domain?.toLowerCase() ?? null },
    });
  }
  for (const match of text.matchAll(HASHTAG)) {
    const [whole, name = ''] = match;
    if (name.length > MAX_TAG_LENGTH) continue;
    if (found.some((f) => match.index < f.index + f.length && f.index < match.index + whole.length)) continue;
    found.push({ index: match.index, length: whole.length, segment: { kind: 'hashtag', text: whole, name } });
  }
  found.sort((a, b) => a.index - b.index);
  const segments: Segment[] = [];
  let at = 0;
  for (const f of found) {
    if (f.index > at) segments.push({ kind: 'text', text: text.slice(at, f.index) });
    segments.push(f.segment);
    at = f.index + f.length;
  }
  if (at < text.length) segments.push({ kind: 'text', text: text.slice(at) });
  return segments;
}

function paragraphsOf(text: string): string[] {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  return normalized === '' ? [] : normalized.split(/\n{2,}/);
}

/** The mentions and hashtags a text contains, each once, in order. */
export function extractEntities(text: string): { mentions: MentionCandidate[]; tags: string[] } {
  const mentions = new Map<string, MentionCandidate>();
  const tags = new Map<string, string>();
  for (const paragraph of paragraphsOf(text)) {
    for (const segment of segmentsOf(paragraph)) {
      if (segment.kind === 'mention') {
        const key = `${segment.username.toLowerCase()}@${segment.domain ?? ''}`;
        if (!mentions.has(key)) mentions.set(key, { username: segment.username, domain: segment.domain });
      } else if (segment.kind === 'hashtag') {
        const key = segment.name.toLowerCase();
        if (!tags.has(key)) tags.set(key, segment.name);
      }
    }
  }
  return { mentions: [...mentions.values()], tags: [...tags.values()] };
}

/** The length the character limit applies to: a link counts as `urlLength`, a remote mention as `@name`. */
export function statusLength(text: string, urlLength: number): number {
  let length = 0;
  for (const paragraph of paragraphsOf(text)) {
    for (const segment of segmentsOf(paragraph)) {
      if (segment.kind === 'url') length += urlLength;
      else if (segment.kind === 'mention') length += characterCount(`@${segment.username}`);
      else length += characterCount(segment.text);
    }
  }
  // The separators between paragraphs were dropped by the split: count the text's own length of them.
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  const separators = normalized.match(/\n{2,}/g) ?? [];
  return length + separators.reduce((sum, s) => sum + s.length, 0);
}

export interface RenderOptions {
  /** Resolves a written mention to the account it links to; unresolved ones stay text. */
  mention(candidate: MentionCandidate): LinkedMention | undefined;
  /** The URL of a hashtag's page. */
  tagUrl(name: string): string;
}

/**
 * A status's plain text as the reference's HTML: paragraphs, `<br />` for single line breaks, links
 * (`rel="nofollow noopener"`), mentions (`h-card` + `u-url mention`) and hashtags (`mention hashtag`).
 * Every piece of the user's text is escaped; only our own markup is literal.
 */
export function renderStatusHtml(text: string, options: RenderOptions): string {
  return paragraphsOf(text)
    .map(
      (paragraph) =>
        `<p>${segmentsOf(paragraph)
          .map((s) => segmentHtml(s, options))
          .join('')}</p>`,
    )
    .join('');
}

function segmentHtml(segment: Segment, options: RenderOptions): string {
  switch (segment.kind) {
    case 'text':
      return segment.text.split('\n').map(escapeHtml).join('<br />');
    case 'url':
      return urlHtml(segment.text, segment.href);
    case 'hashtag':
      return (
        `<a href="${escapeHtml(options.tagUrl(segment.name))}" class="mention hashtag" rel="tag">` +
        `#<span>${escapeHtml(segment.name)}</span></a>`
      );
    case 'mention': {
      const linked = options.mention(segment);
      if (!linked) return escapeHtml(segment.text);
      return (
        `<span class="h-card" translate="no"><a href="${escapeHtml(linked.url)}" class="u-url mention">` +
        `@<span>${escapeHtml(linked.username)}</span></a></span>`
      );
    }
  }
}

/** A link shown as the reference shows it: scheme hidden, long paths cut with an ellipsis. */
function urlHtml(text: string, href: string): string {
  const scheme = /^https?:\/\/(www\.)?/i.exec(text)?.[0] ?? '';
  const rest = text.slice(scheme.length);
  const shown = [...rest];
  const visible = shown.slice(0, 30).join('');
  const hidden = shown.slice(30).join('');
  return (
    `<a href="${escapeHtml(href)}" target="_blank" rel="nofollow noopener" translate="no">` +
    `<span class="invisible">${escapeHtml(scheme)}</span>` +
    `<span class="${hidden === '' ? '' : 'ellipsis'}">${escapeHtml(visible)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}
