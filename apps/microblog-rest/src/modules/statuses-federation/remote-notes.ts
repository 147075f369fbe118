import { idOf, sameOrigin, sanitizeRemoteHtml, type Actor } from '@agora/federation';
import { escapeHtml } from '@agora/core';
import type { Visibility } from '../statuses/status.model.js';
import { AS_PUBLIC } from './note-objects.js';

/** Object types shown as statuses (spec §4.2: Note and Question first-class, Article and Page converted). */
export const STATUS_OBJECT_TYPES = ['Note', 'Question', 'Article', 'Page'] as const;

/** A remote status object, checked and cleaned: what is stored of it. */
export interface RemoteNoteValues {
  uri: string;
  url: string | null;
  /** Sanitized HTML. */
  content: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToUri: string | null;
  conversationUri: string | null;
  published: Date | null;
  updated: Date | null;
  /** Actor ids named by `Mention` tags. */
  mentionUris: string[];
  /** Hashtag names without `#`. */
  tags: string[];
  attachments: RemoteAttachment[];
  /** A `Question`'s poll. */
  poll: RemotePoll | null;
  /** A vote on a poll, as Mastodon sends it: a Note with `name` (the choice), no content. */
  voteName: string | null;
}

export interface RemotePoll {
  options: string[];
  tallies: number[];
  multiple: boolean;
  votersCount: number;
  expiresAt: Date | null;
  closedAt: Date | null;
}

const MAX_POLL_OPTIONS = 20;
const POLL_OPTION_MAX = 200;

/** An attachment of a remote status: the peer's file, described. */
export interface RemoteAttachment {
  type: 'image' | 'gifv' | 'video' | 'audio' | 'unknown';
  remoteUrl: string;
  contentType: string | null;
  description: string | null;
  blurhash: string | null;
  meta: { focus?: { x: number; y: number }; original?: { width: number; height: number } };
}

/** Mastodon keeps the first four attachments of a remote status. */
const MAX_ATTACHMENTS = 4;
const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,100}$/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const CONTENT_MAX = 100_000;
const SUMMARY_MAX = 5000;
const PUBLIC_IDS = new Set([AS_PUBLIC, 'as:Public', 'Public']);
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,4}$/i;
const TAG_NAME = /^[\p{L}\p{N}_]{1,100}$/u;

/**
 * Parses a status object a peer sent. Refused: an id not on the signer's origin, an `attributedTo`
 * other than the signer (§5.2: origin checks), content past the cap. HTML goes through the house
 * sanitizer (Mastodon's allow-list); an Article or Page with a name shows the name as a link.
 */
export function parseRemoteNote(object: Record<string, unknown>, signer: Actor): Parsed<RemoteNoteValues> {
  const uri = idOf(object);
  if (!uri || !sameOrigin(uri, signer.uri)) return fail("the object's id is not on the signer's origin");
  const attributedTo = Array.isArray(object.attributedTo)
    ? object.attributedTo.map(idOf)
    : [idOf(object.attributedTo)];
  if (attributedTo.length !== 1 || attributedTo[0] !== signer.uri)
    return fail('attributedTo is not the signer');
  const type = String(object.type);
  let html = text(object.content) ?? text(contentMapValue(object.contentMap)) ?? '';
  if (html.length > CONTENT_MAX) return fail('the content is too long');
  const url = urlOf(object.url);
  if ((type === 'Article' || type === 'Page') && text(object.name)) {
    // Converted as Mastodon does: the title, linked to the page, then the text.
    const name = escapeHtml(text(object.name)!.slice(0, 500));
    html = `<p>${url ? `<a href="${escapeHtml(url)}">${name}</a>` : `<strong>${name}</strong>`}</p>${html}`;
  }
  const summary = (text(object.summary) ?? '').slice(0, SUMMARY_MAX);
  const tags = list(object.tag);
  const language = Object.keys(
    typeof object.contentMap === 'object' && object.contentMap !== null ? object.contentMap : {},
  )[0];
  return {
    ok: true,
    value: {
      uri,
      url: url && sameOrigin(url, signer.uri) ? url : null,
      content: sanitizeRemoteHtml(html),
      // The content warning is plain text (Mastodon's spoiler_text): tags stripped, entities decoded.
      spoilerText: plainText(summary),
      sensitive: object.sensitive === true || summary !== '',
      visibility: visibilityOf(object, signer),
      language: language && LANGUAGE_TAG.test(language) ? language.toLowerCase() : null,
      inReplyToUri: idOf(object.inReplyTo),
      conversationUri: text(object.conversation) ?? text(object.context) ?? null,
      published: date(object.published),
      updated: date(object.updated),
      mentionUris: [
        ...new Set(
          tags
            .filter((tag) => tag.type === 'Mention')
            .map((tag) => idOf(tag.href))
            .filter((href): href is string => href !== null),
        ),
      ],
      attachments: list(object.attachment).flatMap(attachmentOf).slice(0, MAX_ATTACHMENTS),
      poll: type === 'Question' ? pollOf(object) : null,
      voteName:
        type === 'Note' && html === '' && typeof object.name === 'string'
          ? object.name.slice(0, POLL_OPTION_MAX)
          : null,
      tags: [
        ...new Set(
          tags
            .filter((tag) => tag.type === 'Hashtag' && typeof tag.name === 'string')
            .map((tag) => String(tag.name).replace(/^#/, ''))
            .filter((name) => TAG_NAME.test(name)),
        ),
      ],
    },
  };
}

/** Mastodon's rule: Public in `to` is public, in `cc` unlisted; the followers collection private; else direct. */
export function visibilityOf(object: Record<string, unknown>, signer: Actor): Visibility {
  const to = audience(object.to);
  const cc = audience(object.cc);
  if (to.some((id) => PUBLIC_IDS.has(id))) return 'public';
  if (cc.some((id) => PUBLIC_IDS.has(id))) return 'unlisted';
  const followers = signer.followersUrl;
  if (followers && [...to, ...cc].includes(followers)) return 'private';
  return 'direct';
}

/** `oneOf` (single choice) or `anyOf` (multiple): names and `replies.totalItems` as the tallies. */
function pollOf(object: Record<string, unknown>): RemotePoll | null {
  const multiple = Array.isArray(object.anyOf);
  const choices = list(multiple ? object.anyOf : object.oneOf).slice(0, MAX_POLL_OPTIONS);
  const options = choices.map((choice) => plainText(text(choice.name) ?? '').slice(0, POLL_OPTION_MAX));
  if (options.length < 2 || options.some((option) => option === '')) return null;
  const tallies = choices.map((choice) => {
    const total = (choice.replies as { totalItems?: unknown } | undefined)?.totalItems;
    return Number.isInteger(total) && (total as number) >= 0 ? Math.min(total as number, 2 ** 31 - 1) : 0;
  });
  const voters = object.votersCount;
  const votes = tallies.reduce((sum, n) => sum + n, 0);
  return {
    options,
    tallies,
    multiple,
    votersCount:
      Number.isInteger(voters) && (voters as number) >= 0 ? Math.min(voters as number, votes) : votes,
    expiresAt: date(object.endTime),
    closedAt: date(object.closed) ?? (object.closed === true ? new Date() : null),
  };
}

function attachmentOf(item: Record<string, unknown>): RemoteAttachment[] {
  if (!['Document', 'Image', 'Video', 'Audio'].includes(String(item.type))) return [];
  const remoteUrl = urlOf(item.url);
  if (!remoteUrl) return [];
  const mediaType = text(item.mediaType)?.toLowerCase().slice(0, 100) ?? null;
  const kind = mediaType?.split('/')[0];
  const type =
    kind === 'image' ? 'image' : kind === 'video' ? 'video' : kind === 'audio' ? 'audio' : 'unknown';
  const meta: RemoteAttachment['meta'] = {};
  const focal = item.focalPoint;
  if (
    Array.isArray(focal) &&
    focal.length === 2 &&
    focal.every((value) => typeof value === 'number' && value >= -1 && value <= 1)
  ) {
    meta.focus = { x: focal[0] as number, y: focal[1] as number };
  }
  const { width, height } = item;
  if (
    Number.isInteger(width) &&
    Number.isInteger(height) &&
    (width as number) > 0 &&
    (height as number) > 0
  ) {
    meta.original = { width: width as number, height: height as number };
  }
  const blurhash = text(item.blurhash);
  const description = text(item.name) ?? text(item.summary);
  return [
    {
      type,
      remoteUrl,
      contentType: mediaType,
      description: description ? plainText(description).slice(0, 1500) : null,
      blurhash: blurhash && BLURHASH.test(blurhash) ? blurhash : null,
      meta,
    },
  ];
}

/** Whether an audience field (`to`, `cc`: an id, an object or a list of them) names the public collection. */
export function addressesPublic(value: unknown): boolean {
  return audience(value).some((id) => PUBLIC_IDS.has(id));
}

function audience(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.map(idOf).filter((id): id is string => id !== null);
}

function contentMapValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.values(value)[0];
}

function urlOf(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return isWebUrl(first) ? first : null;
  if (typeof first === 'object' && first !== null) {
    const href = (first as { href?: unknown }).href;
    return typeof href === 'string' && isWebUrl(href) ? href : null;
  }
  return null;
}

function isWebUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

function list(value: unknown): Array<Record<string, unknown>> {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** HTML to the text it shows: tags dropped, character references decoded (once). */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code =
          name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) && code !== 0
          ? String.fromCodePoint(code)
          : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .trim();
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
