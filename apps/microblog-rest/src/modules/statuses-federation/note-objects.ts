import type { Actor } from '@agora/federation';
import { tagUrl } from '../../entities/status.js';
import type { MediaAttachmentRow } from '../media/media-attachment.model.js';
import type { Visibility } from '../statuses/status.model.js';
import type { StatusView } from '../statuses/views/status.view.js';

/**
 * The documents Mastodon 4.x sends for statuses (spec microblog/not-shown.md §4.2), built from a
 * hydrated status view: `Note` (or `Question` with a poll), and the activities that carry it.
 */

export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** The JSON-LD context of status documents: ActivityStreams plus the `toot:`/`ostatus:` terms used. */
export const STATUS_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  {
    ostatus: 'http://ostatus.org#',
    atomUri: 'ostatus:atomUri',
    inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
    conversation: 'ostatus:conversation',
    sensitive: 'as:sensitive',
    toot: 'http://joinmastodon.org/ns#',
    votersCount: 'toot:votersCount',
    blurhash: 'toot:blurhash',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
    Hashtag: 'as:Hashtag',
  },
];

export interface NoteSource {
  view: StatusView;
  author: Actor;
  /** The parent's ActivityPub id, when the status is a reply. */
  inReplyToUri: string | null;
  /** The conversation's id (a remote one's uri, or our `tag:` URI). */
  conversationUri: string | null;
  /** Public URL of a stored file. */
  mediaUrl: (key: string) => string;
  publicUrl: string;
  localHost: string;
}

/** `to` and `cc` by visibility, as Mastodon addresses them; mentioned actors' ids in `mentions`. */
export function addressing(
  visibility: Visibility,
  followersUrl: string | null,
  mentions: readonly string[],
): { to: string[]; cc: string[] } {
  const followers = followersUrl ? [followersUrl] : [];
  switch (visibility) {
    case 'public':
      return { to: [AS_PUBLIC], cc: [...followers, ...mentions] };
    case 'unlisted':
      return { to: followers, cc: [AS_PUBLIC, ...mentions] };
    case 'private':
      return { to: followers, cc: [...mentions] };
    case 'direct':
      return { to: [...mentions], cc: [] };
  }
}

/** The ActivityPub document of a local status: a `Note`, or a `Question` when it holds a poll. */
export function noteObject(source: NoteSource): Record<string, unknown> {
  const { view, author } = source;
  const row = view.row;
  const uri = row.uri ?? `${author.uri}/statuses/${row.id}`;
  const mentionUris = view.mentions.map((mention) => mention.uri);
  const { to, cc } = addressing(row.visibility, author.followersUrl, mentionUris);
  const language = row.language;
  const tag: Array<Record<string, unknown>> = [
    ...view.mentions.map((mention) => ({
      type: 'Mention',
      href: mention.uri,
      name: `@${mention.username}@${mention.domain ?? source.localHost}`,
    })),
    ...view.tags.map((name) => ({
      type: 'Hashtag',
      href: tagUrl(source.publicUrl, name),
      name: `#${name}`,
    })),
  ];
  const note: Record<string, unknown> = {
    id: uri,
    type: view.poll ? 'Question' : 'Note',
    summary: row.spoilerText === '' ? null : row.spoilerText,
    inReplyTo: source.inReplyToUri,
    published: new Date(row.createdAt).toISOString(),
    url: row.url ?? uri,
    attributedTo: author.uri,
    to,
    cc,
    sensitive: row.sensitive,
    atomUri: uri,
    inReplyToAtomUri: source.inReplyToUri,
    conversation: source.conversationUri,
    content: row.content,
    ...(language ? { contentMap: { [language]: row.content } } : {}),
    attachment: view.media.map((media) => documentOf(media, source.mediaUrl)),
    tag,
    replies: {
      id: `${uri}/replies`,
      type: 'Collection',
      totalItems: row.repliesCount,
    },
  };
  if (row.editedAt) note.updated = new Date(row.editedAt).toISOString();
  if (view.poll) {
    const poll = view.poll;
    const choices = poll.options.map((name, index) => ({
      type: 'Note',
      name,
      replies: { type: 'Collection', totalItems: poll.tallies[index] ?? 0 },
    }));
    note[poll.multiple ? 'anyOf' : 'oneOf'] = choices;
    if (poll.expiresAt) note.endTime = new Date(poll.expiresAt).toISOString();
    if (poll.expired && poll.expiresAt) note.closed = new Date(poll.expiresAt).toISOString();
    note.votersCount = poll.votersCount;
  }
  return note;
}

/** An attachment as Mastodon sends it: a `Document` with its blurhash, focal point and size. */
function documentOf(media: MediaAttachmentRow, mediaUrl: (key: string) => string): Record<string, unknown> {
  const original = media.fileKeys.original;
  const meta = media.meta as {
    original?: { width?: number; height?: number };
    focus?: { x: number; y: number };
  };
  const document: Record<string, unknown> = {
    type: 'Document',
    mediaType: media.contentType,
    url: original ? mediaUrl(original) : null,
    name: media.description,
    blurhash: media.blurhash,
  };
  if (meta.focus) document.focalPoint = [meta.focus.x, meta.focus.y];
  if (meta.original?.width) document.width = meta.original.width;
  if (meta.original?.height) document.height = meta.original.height;
  return document;
}

/** Create or Update of a status's object, addressed as the object is. */
export function wrapNote(
  type: 'Create' | 'Update',
  note: Record<string, unknown>,
  at: Date,
): Record<string, unknown> {
  const id = String(note.id);
  return {
    '@context': STATUS_CONTEXT,
    id: type === 'Create' ? `${id}/activity` : `${id}#updates/${at.getTime()}`,
    type,
    actor: note.attributedTo,
    published: type === 'Create' ? note.published : at.toISOString(),
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/** Delete of a status: a Tombstone with the status's id, addressed as the status was. */
export function deleteNote(
  uri: string,
  author: Actor,
  addressed: { to: string[]; cc: string[] },
): Record<string, unknown> {
  return {
    '@context': STATUS_CONTEXT,
    id: `${uri}#delete`,
    type: 'Delete',
    actor: author.uri,
    to: addressed.to,
    cc: addressed.cc,
    object: { id: uri, type: 'Tombstone', atomUri: uri },
  };
}

/** A reblog: Announce of the original's id, with the reblog's own visibility (public or unlisted). */
export function announceActivity(input: {
  id: string;
  actor: Actor;
  objectUri: string;
  originalAuthorUri: string;
  visibility: Visibility;
  published: Date;
}): Record<string, unknown> {
  const followers = input.actor.followersUrl ? [input.actor.followersUrl] : [];
  const unlisted = input.visibility === 'unlisted';
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: input.id,
    type: 'Announce',
    actor: input.actor.uri,
    published: input.published.toISOString(),
    to: unlisted ? followers : [AS_PUBLIC],
    cc: [input.originalAuthorUri, ...(unlisted ? [AS_PUBLIC] : followers)],
    object: input.objectUri,
  };
}

/** Undo of an earlier activity of `actor`, given inline. */
export function undoActivity(actor: Actor, inner: Record<string, unknown>): Record<string, unknown> {
  const { '@context': _context, ...object } = inner;
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${String(inner.id)}/undo`,
    type: 'Undo',
    actor: actor.uri,
    to: inner.to,
    cc: inner.cc,
    object,
  };
}

/** A favourite: Like of the status's id, sent to its author (the id is stable, so Undo names it). */
export function likeActivity(actor: Actor, statusId: string, objectUri: string): Record<string, unknown> {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${actor.uri}#likes/${statusId}`,
    type: 'Like',
    actor: actor.uri,
    object: objectUri,
  };
}

/** Mastodon's conversation URI for a conversation started here. */
export function localConversationUri(localHost: string, conversationId: string, createdAt: Date): string {
  const day = new Date(createdAt).toISOString().slice(0, 10);
  return `tag:${localHost.replace(/:\d+$/, '')},${day}:objectId=${conversationId}:objectType=Conversation`;
}
