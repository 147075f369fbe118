import type { FakeActor } from '@agora/federation/testing';

/**
 * Activities shaped as Mastodon 4.x sends them (spec microblog/not-shown.md §4.2: `Note` with the
 * `toot:`/`ostatus:` terms, addressed by visibility, Announce/Like by id, Undo with the activity
 * inline, Delete with a Tombstone), for the fake remote to send to our inbox.
 */

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const CONTEXT = [
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

export interface NoteInput {
  id: number;
  content: string;
  visibility?: 'public' | 'unlisted' | 'private' | 'direct';
  mentions?: Array<{ uri: string; acct: string }>;
  hashtags?: string[];
  summary?: string | null;
  inReplyTo?: string | null;
  attributedTo?: string;
  type?: 'Note' | 'Article' | 'Page';
  name?: string;
  attachment?: Array<Record<string, unknown>>;
}

/** A Mastodon status object of `author` (`/users/name/statuses/id`, `/@name/id`). */
export function mastodonNote(author: FakeActor, input: NoteInput): Record<string, unknown> {
  const uri = `${author.uri}/statuses/${input.id}`;
  const followers = `${author.uri}/followers`;
  const mentions = (input.mentions ?? []).map((mention) => mention.uri);
  const visibility = input.visibility ?? 'public';
  const to = visibility === 'public' ? [PUBLIC] : visibility === 'direct' ? mentions : [followers];
  const cc =
    visibility === 'public'
      ? [followers, ...mentions]
      : visibility === 'unlisted'
        ? [PUBLIC, ...mentions]
        : visibility === 'private'
          ? mentions
          : [];
  const origin = new URL(author.uri).origin;
  const published = new Date().toISOString();
  return {
    id: uri,
    type: input.type ?? 'Note',
    ...(input.name ? { name: input.name } : {}),
    summary: input.summary ?? null,
    inReplyTo: input.inReplyTo ?? null,
    published,
    url: `${origin}/@${author.username}/${input.id}`,
    attributedTo: input.attributedTo ?? author.uri,
    to,
    cc,
    sensitive: Boolean(input.summary),
    atomUri: uri,
    inReplyToAtomUri: input.inReplyTo ?? null,
    conversation: `tag:${new URL(origin).hostname},2026-11-27:objectId=${input.id}:objectType=Conversation`,
    content: input.content,
    contentMap: { en: input.content },
    attachment: input.attachment ?? [],
    tag: [
      ...(input.mentions ?? []).map((mention) => ({
        type: 'Mention',
        href: mention.uri,
        name: `@${mention.acct}`,
      })),
      ...(input.hashtags ?? []).map((tag) => ({
        type: 'Hashtag',
        href: `${origin}/tags/${tag.toLowerCase()}`,
        name: `#${tag}`,
      })),
    ],
    replies: {
      id: `${uri}/replies`,
      type: 'Collection',
      first: {
        type: 'CollectionPage',
        next: `${uri}/replies?only_other_accounts=true&page=true`,
        partOf: `${uri}/replies`,
        items: [],
      },
    },
  };
}

/** Create (or Update, with `updated`) of a note, addressed as the note is. */
export function mastodonCreate(
  author: FakeActor,
  note: Record<string, unknown>,
  type: 'Create' | 'Update' = 'Create',
): Record<string, unknown> {
  const object = type === 'Update' ? { ...note, updated: new Date().toISOString() } : note;
  return {
    '@context': CONTEXT,
    id: type === 'Create' ? `${String(note.id)}/activity` : `${String(note.id)}#updates/${Date.now()}`,
    type,
    actor: author.uri,
    published: type === 'Create' ? note.published : object.updated,
    to: note.to,
    cc: note.cc,
    object,
  };
}

export function mastodonDelete(author: FakeActor, noteUri: string): Record<string, unknown> {
  return {
    '@context': CONTEXT,
    id: `${noteUri}#delete`,
    type: 'Delete',
    actor: author.uri,
    to: [PUBLIC],
    object: { id: noteUri, type: 'Tombstone', atomUri: noteUri },
  };
}

export function mastodonAnnounce(
  author: FakeActor,
  id: number,
  objectUri: string,
  objectAuthorUri: string,
): Record<string, unknown> {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${author.uri}/statuses/${id}/activity`,
    type: 'Announce',
    actor: author.uri,
    published: new Date().toISOString(),
    to: [PUBLIC],
    cc: [objectAuthorUri, `${author.uri}/followers`],
    object: objectUri,
  };
}

export function mastodonLike(author: FakeActor, id: number, objectUri: string): Record<string, unknown> {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${author.uri}#likes/${id}`,
    type: 'Like',
    actor: author.uri,
    object: objectUri,
  };
}

/** Undo of an earlier activity, inline without its context, as Mastodon sends it. */
export function mastodonUndo(author: FakeActor, activity: Record<string, unknown>): Record<string, unknown> {
  const { '@context': _context, ...object } = activity;
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${String(activity.id)}/undo`,
    type: 'Undo',
    actor: author.uri,
    object,
  };
}
