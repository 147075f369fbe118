import { preparedStatement } from '@agora/db';
import type { ActorStore } from '@agora/federation';
import type { Sequelize } from 'sequelize';
import type { SerializableAccount } from '../../../entities/account.js';
import type { RemoteAccountImages } from '../../accounts/account.service.js';
import {
  defineMediaAttachmentModel,
  toMediaAttachment,
  type MediaAttachmentRow,
} from '../../media/media-attachment.model.js';
import { loadPollsByStatus, type PollView } from '../../polls/views/poll.view.js';
import { loadCardsByStatus, type PreviewCardRow } from '../../preview-cards/preview-card.service.js';
import { STATUS_COLUMNS, type StatusRow } from '../status.model.js';
import { loadAccounts } from './accounts.view.js';
import { viewerFlagColumns } from './status-facts.js';

export interface MentionView {
  id: string;
  username: string;
  domain: string | null;
  url: string | null;
  uri: string;
}

/** What the viewer did with a status; null for anonymous callers. */
export interface ViewerFlags {
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
  muted: boolean;
  pinned: boolean;
}

/** A status with everything its entity shows (DTO of this view). */
export interface StatusView {
  row: StatusRow;
  account: SerializableAccount;
  media: MediaAttachmentRow[];
  mentions: MentionView[];
  tags: string[];
  application: { name: string; website: string | null } | null;
  reblog: StatusView | null;
  poll: PollView | null;
  /** The preview card of its first link (issue 16 §3), null until the job fetched one. */
  card: PreviewCardRow | null;
  viewer: ViewerFlags | null;
  /** The account the flags are for (`pinned` is shown on its own statuses only). */
  viewerId: string | null;
}

export interface StatusViewDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  remoteImages?: RemoteAccountImages | undefined;
}

/**
 * Hydrates statuses for one viewer: a page costs a fixed number of queries (statuses with their
 * reblogged originals and applications, accounts (2), the viewer's flags, and only when one of the
 * page's statuses has any: media, mentions, tags, polls with the viewer's votes, preview cards),
 * not one per status. The first read says which of those a status has, so a page of plain statuses
 * reads no empty lists; every raw read is a named statement (parsed and planned once per
 * connection). Ids that do not exist are absent from the map; deleted rows are returned too (the
 * caller decides: DELETE answers the removed status).
 */
export async function loadStatusViews(
  deps: StatusViewDeps,
  ids: readonly string[],
  viewerId: string | null,
): Promise<Map<string, StatusView>> {
  const result = new Map<string, StatusView>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return result;
  const { sequelize } = deps;
  const rows = await VIEW_ROWS.rows(sequelize, [unique]);
  // Statuses already gone (a reblog just removed): nothing more to read.
  if (rows.length === 0) return result;
  const all = new Map(rows.map((row) => [row.id, row]));
  const allIds = [...all.keys()];
  const having = (flag: 'hasMedia' | 'hasMentions' | 'hasTags' | 'hasCard' | 'hasPoll') =>
    rows.filter((row) => row[flag]).map((row) => row.id);
  const withMedia = having('hasMedia');
  const withMentions = having('hasMentions');
  const withTags = having('hasTags');
  const media = defineMediaAttachmentModel(sequelize);
  const [accounts, mediaRows, mentions, tags, flags, polls, cards] = await Promise.all([
    loadAccounts(
      deps,
      rows.map((row) => row.accountId),
    ),
    withMedia.length === 0
      ? Promise.resolve([])
      : media.findAll({ where: { statusId: withMedia }, order: [['id', 'ASC']] }),
    withMentions.length === 0 ? Promise.resolve([]) : MENTIONS.rows(sequelize, [withMentions]),
    withTags.length === 0 ? Promise.resolve([]) : TAGS.rows(sequelize, [withTags]),
    viewerId === null ? Promise.resolve([]) : VIEWER_FLAGS.rows(sequelize, [allIds, viewerId]),
    // Only pages with polls (cards, media, …) pay for them.
    loadPollsByStatus(sequelize, having('hasPoll'), viewerId),
    loadCardsByStatus(sequelize, having('hasCard')),
  ]);
  const group = <T extends { statusId: string }>(list: T[]) => {
    const by = new Map<string, T[]>();
    for (const item of list) {
      const bucket = by.get(item.statusId);
      if (bucket) bucket.push(item);
      else by.set(item.statusId, [item]);
    }
    return by;
  };
  const mediaBy = group(mediaRows.map(toMediaAttachment) as Array<MediaAttachmentRow & { statusId: string }>);
  const mentionsBy = group(mentions);
  const tagsBy = group(tags);
  const flagsBy = new Map(flags.map((f) => [f.id, f]));

  const build = (id: string): StatusView | null => {
    const row = all.get(id);
    if (!row) return null;
    const account = accounts.get(row.accountId);
    if (!account) return null;
    const {
      appName,
      appWebsite,
      hasPoll: _hasPoll,
      hasMedia: _hasMedia,
      hasMentions: _hasMentions,
      hasTags: _hasTags,
      hasCard: _hasCard,
      ...status
    } = row;
    const reblog = row.reblogOfId === null ? null : build(row.reblogOfId);
    if (row.reblogOfId !== null && reblog === null) return null;
    const viewerFlag = flagsBy.get(id);
    return {
      row: { ...status, createdAt: new Date(status.createdAt), editedAt: dateOrNull(status.editedAt) },
      account,
      media: mediaBy.get(id) ?? [],
      mentions: (mentionsBy.get(id) ?? []).map(({ statusId: _statusId, ...mention }) => mention),
      tags: (tagsBy.get(id) ?? []).map((tag) => tag.name),
      application: appName === null ? null : { name: appName, website: appWebsite },
      reblog,
      poll: polls.get(id) ?? null,
      card: cards.get(id) ?? null,
      viewerId,
      viewer:
        viewerId === null
          ? null
          : {
              favourited: viewerFlag?.favourited ?? false,
              reblogged: viewerFlag?.reblogged ?? false,
              bookmarked: viewerFlag?.bookmarked ?? false,
              muted: viewerFlag?.muted ?? false,
              pinned: viewerFlag?.pinned ?? false,
            },
    };
  };
  for (const id of unique) {
    const view = build(id);
    if (view) result.set(id, view);
  }
  return result;
}

type ViewRow = StatusRow & {
  appName: string | null;
  appWebsite: string | null;
  hasPoll: boolean;
  hasMedia: boolean;
  hasMentions: boolean;
  hasTags: boolean;
  hasCard: boolean;
};

const VIEW_ROWS = preparedStatement<ViewRow, [ids: string[]]>({
  name: 'microblog_status_view_rows',
  text: `WITH wanted AS (SELECT unnest($1::bigint[]) AS id)
     SELECT ${STATUS_COLUMNS}, app.name AS "appName", app.website AS "appWebsite",
            EXISTS (SELECT 1 FROM polls p WHERE p.status_id = s.id) AS "hasPoll",
            EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = s.id) AS "hasMedia",
            EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id) AS "hasMentions",
            EXISTS (SELECT 1 FROM statuses_tags st WHERE st.status_id = s.id) AS "hasTags",
            EXISTS (SELECT 1 FROM status_preview_cards spc WHERE spc.status_id = s.id) AS "hasCard"
       FROM statuses s
       LEFT JOIN oauth_applications app ON app.id = s.application_id
      -- One list of ids (a UNION, not an OR of two IN: that cannot use the primary key and reads
      -- every status, 0.5 s among 1M)
      WHERE s.id IN (SELECT id FROM wanted
                     UNION SELECT r.reblog_of_id FROM statuses r
                            WHERE r.id IN (SELECT id FROM wanted) AND r.reblog_of_id IS NOT NULL)`,
});

const MENTIONS = preparedStatement<MentionView & { statusId: string }, [ids: string[]]>({
  name: 'microblog_status_view_mentions',
  text: `SELECT m.status_id::text AS "statusId", a.id::text AS id, a.username, a.domain, a.url, a.uri
           FROM mentions m JOIN actors a ON a.id = m.account_id
          WHERE m.status_id = ANY($1::bigint[]) ORDER BY a.id`,
});

const TAGS = preparedStatement<{ statusId: string; name: string }, [ids: string[]]>({
  name: 'microblog_status_view_tags',
  text: `SELECT st.status_id::text AS "statusId", t.name
           FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
          WHERE st.status_id = ANY($1::bigint[]) ORDER BY t.name`,
});

/** One query for the viewer's favourites, reblogs, bookmarks, conversation mutes and pins. */
const VIEWER_FLAGS = preparedStatement<ViewerFlags & { id: string }, [ids: string[], viewerId: string]>({
  name: 'microblog_status_view_viewer_flags',
  text: `SELECT s.id::text AS id, ${viewerFlagColumns('s', '$2::bigint', (name) => name)}
       FROM statuses s WHERE s.id = ANY($1::bigint[])`,
});

function dateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
