import type {
  ScheduledParams,
  ScheduledStatusView,
} from '../modules/scheduled-statuses/scheduled-status.service.js';
import { serializeMediaAttachment, type MediaAttachmentJson } from './media-attachment.js';

/** Mastodon's ScheduledStatus entity (2.7): the post's parameters as given, its media. */
export interface ScheduledStatusJson {
  id: string;
  scheduled_at: string;
  params: ScheduledParams & { scheduled_at: null; with_rate_limit: boolean };
  media_attachments: MediaAttachmentJson[];
}

export function serializeScheduledStatus(
  view: ScheduledStatusView,
  mediaUrl: (key: string) => string,
): ScheduledStatusJson {
  return {
    id: view.id,
    scheduled_at: view.scheduledAt.toISOString(),
    params: { ...view.params, scheduled_at: null, with_rate_limit: false },
    media_attachments: view.media.map((media) => serializeMediaAttachment(media, mediaUrl)),
  };
}
