import { preparedStatement } from '@agora/db';
import { QueryTypes, type Sequelize } from 'sequelize';
import { isActorId } from '../actors/index.js';

/** An actor id (local ones are skipped: they get no HTTP delivery) or inbox URLs straight from a document. */
export type DeliveryRecipient = string | { inboxUrl: string; sharedInboxUrl?: string | null };

interface InboxRow {
  inbox_url: string | null;
  shared_inbox_url: string | null;
}

// DISTINCT in SQL: a popular actor's followers share few inboxes, so fewer rows come back. Named, as
// it runs for every activity an actor sends to its followers (ADR 0051).
const FOLLOWER_INBOXES = preparedStatement<InboxRow, [actorId: string]>({
  name: 'agora_delivery_follower_inboxes',
  text: `SELECT DISTINCT coalesce(nullif(a.shared_inbox_url, ''), a.inbox_url) AS inbox_url, NULL AS shared_inbox_url
           FROM follows f JOIN actors a ON a.id = f.actor_id
          WHERE f.target_actor_id = $1 AND f.accepted_at IS NOT NULL
            AND a.domain IS NOT NULL AND a.suspended_at IS NULL`,
});

/**
 * The distinct inbox URLs to POST to: followers (accepted, remote, not suspended) and the given
 * recipients, each at its shared inbox when it has one, as Mastodon's `preferred_inbox_url`.
 */
export async function expandRecipients(
  sequelize: Sequelize,
  input: { recipients?: readonly DeliveryRecipient[]; followersOf?: string },
): Promise<string[]> {
  const inboxes = new Set<string>();
  const add = (row: InboxRow): void => {
    const url = normalizeInbox(row.shared_inbox_url || row.inbox_url);
    if (url) inboxes.add(url);
  };
  const actorIds: string[] = [];
  for (const recipient of input.recipients ?? []) {
    if (typeof recipient === 'string') {
      if (isActorId(recipient)) actorIds.push(recipient);
    } else {
      add({ inbox_url: recipient.inboxUrl, shared_inbox_url: recipient.sharedInboxUrl ?? null });
    }
  }
  if (actorIds.length > 0) {
    const rows = await sequelize.query<InboxRow>(
      `SELECT inbox_url, shared_inbox_url FROM actors
        WHERE id = ANY($1::bigint[]) AND domain IS NOT NULL AND suspended_at IS NULL`,
      { bind: [actorIds], type: QueryTypes.SELECT },
    );
    rows.forEach(add);
  }
  if (input.followersOf !== undefined && isActorId(input.followersOf)) {
    const rows = await FOLLOWER_INBOXES.rows(sequelize, [input.followersOf]);
    rows.forEach(add);
  }
  return [...inboxes];
}

/** One spelling per inbox (so de-duplication works); null for anything that is not an http(s) URL. */
export function normalizeInbox(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}
