import { acctOf } from '@agora/federation';
import type { AnnouncementView } from '../modules/announcements/announcement.service.js';
import { tagUrl } from './status.js';

export interface AnnouncementJson {
  id: string;
  content: string;
  starts_at: string | null;
  ends_at: string | null;
  published: boolean;
  all_day: boolean;
  published_at: string;
  updated_at: string;
  read: boolean;
  mentions: Array<{ id: string; username: string; url: string; acct: string }>;
  statuses: Array<{ id: string; url: string }>;
  tags: Array<{ name: string; url: string }>;
  emojis: never[];
  reactions: Array<{ name: string; count: number; me: boolean }>;
}

/** Mastodon's Announcement (not-shown.md §2.3 conventions: every attribute present, string ids). */
export function serializeAnnouncement(view: AnnouncementView, publicUrl: string): AnnouncementJson {
  return {
    id: view.id,
    content: view.content,
    starts_at: view.startsAt?.toISOString() ?? null,
    ends_at: view.endsAt?.toISOString() ?? null,
    published: view.publishedAt !== null,
    all_day: view.allDay,
    // A listed announcement is published; the admin tool's drafts show their creation time here.
    published_at: (view.publishedAt ?? view.updatedAt).toISOString(),
    updated_at: view.updatedAt.toISOString(),
    read: view.read,
    mentions: view.mentions.map((actor) => ({
      id: actor.id,
      username: actor.username,
      url: actor.url ?? actor.uri,
      acct: acctOf(actor),
    })),
    statuses: view.statuses.map((status) => ({ id: status.id, url: status.url })),
    tags: view.tags.map((name) => ({ name, url: tagUrl(publicUrl, name) })),
    emojis: [],
    reactions: view.reactions.map((reaction) => ({
      name: reaction.name,
      count: reaction.count,
      me: reaction.me,
    })),
  };
}
