import { acctOf } from '@agora/federation';
import type { StatusView } from '../modules/statuses/views/status.view.js';
import { serializeAccount, type AccountJson } from './account.js';
import type { FilterResultJson } from './filter.js';
import { serializeMediaAttachment, type MediaAttachmentJson } from './media-attachment.js';
import { serializePoll, type PollJson } from './poll.js';
import { serializePreviewCard, type PreviewCardJson } from './preview-card.js';

export interface StatusMentionJson {
  id: string;
  username: string;
  url: string;
  acct: string;
}

export interface StatusTagJson {
  name: string;
  url: string;
}

/** Mastodon's Status entity (4.5): every attribute present, viewer flags when signed in. */
export interface StatusJson {
  id: string;
  uri: string;
  created_at: string;
  account: AccountJson;
  content: string;
  visibility: string;
  sensitive: boolean;
  spoiler_text: string;
  media_attachments: MediaAttachmentJson[];
  application: { name: string; website: string | null } | null;
  mentions: StatusMentionJson[];
  tags: StatusTagJson[];
  emojis: never[];
  reblogs_count: number;
  favourites_count: number;
  replies_count: number;
  quotes_count: number;
  url: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  reblog: StatusJson | null;
  poll: PollJson | null;
  card: PreviewCardJson | null;
  language: string | null;
  text: string | null;
  edited_at: string | null;
  quote: null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
  /** Collections featuring the status (4.6); collections do not exist here. */
  tagged_collections: never[];
  favourited?: boolean;
  reblogged?: boolean;
  muted?: boolean;
  bookmarked?: boolean;
  pinned?: boolean;
  filtered?: FilterResultJson[];
}

/** What a status's JSON needs besides the view: absolute URLs. */
export interface StatusJsonContext {
  publicUrl: string;
  /** A media storage key → its public URL. */
  mediaUrl(key: string): string;
}

/**
 * The JSON of a status; `withText` adds the source text (DELETE, for delete-and-redraft); `filtered`:
 * the viewer's filters it matched (none when not given).
 */
export function serializeStatus(
  view: StatusView,
  context: StatusJsonContext,
  options: { withText?: boolean; nested?: boolean; filtered?: FilterResultJson[] } = {},
): StatusJson {
  const { row, viewer } = view;
  const { publicUrl } = context;
  const json: StatusJson = {
    id: row.id,
    uri: row.uri ?? '',
    created_at: row.createdAt.toISOString(),
    account: serializeAccount(view.account, publicUrl),
    content: row.content,
    visibility: row.visibility,
    sensitive: row.sensitive,
    spoiler_text: row.spoilerText,
    media_attachments: view.media.map((media) =>
      serializeMediaAttachment(media, (key) => context.mediaUrl(key)),
    ),
    application: view.application,
    mentions: view.mentions.map((mention) => ({
      id: mention.id,
      username: mention.username,
      url: mention.url ?? mention.uri,
      acct: acctOf(mention),
    })),
    tags: view.tags.map((name) => ({ name: name.toLowerCase(), url: tagUrl(publicUrl, name) })),
    emojis: [],
    reblogs_count: row.reblogsCount,
    favourites_count: row.favouritesCount,
    replies_count: row.repliesCount,
    quotes_count: 0,
    url: row.url,
    in_reply_to_id: row.inReplyToId,
    in_reply_to_account_id: row.inReplyToAccountId,
    reblog: view.reblog ? serializeStatus(view.reblog, context, { nested: true }) : null,
    poll: view.poll ? serializePoll(view.poll) : null,
    card: view.card ? serializePreviewCard(view.card) : null,
    language: row.language,
    text: options.withText ? row.text : null,
    edited_at: row.editedAt === null ? null : row.editedAt.toISOString(),
    quote: null,
    // Quotes are not offered: nobody may quote automatically or by request.
    quote_approval: { automatic: [], manual: [], current_user: 'denied' },
    tagged_collections: [],
  };
  if (viewer) {
    json.favourited = viewer.favourited;
    json.reblogged = viewer.reblogged;
    // The seed: `muted` is false on a nested reblog.
    json.muted = options.nested ? false : viewer.muted;
    json.bookmarked = viewer.bookmarked;
    if (view.viewerId === view.account.actor.id) json.pinned = viewer.pinned;
    json.filtered = options.filtered ?? [];
  }
  return json;
}

/** A hashtag's page (`/tags/:name`), as statuses link to it. */
export function tagUrl(publicUrl: string, name: string): string {
  return `${publicUrl}/tags/${encodeURIComponent(name.toLowerCase())}`;
}
