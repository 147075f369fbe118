import type { Sequelize, Transaction } from 'sequelize';
import type { StatusRow } from './status.model.js';

/** The accounts a status mentions and the hashtags it carries, stored once the status row exists. */
export async function saveStatusEntities(
  sequelize: Sequelize,
  statusId: string,
  mentionIds: readonly string[],
  tags: readonly string[],
  transaction: Transaction,
): Promise<void> {
  if (mentionIds.length > 0) {
    await sequelize.query(
      'INSERT INTO mentions (status_id, account_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING',
      { bind: [statusId, mentionIds], transaction },
    );
  }
  if (tags.length > 0) {
    await sequelize.query(
      'INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT ((lower(name))) DO NOTHING',
      { bind: [tags], transaction },
    );
    await sequelize.query(
      `INSERT INTO statuses_tags (status_id, tag_id)
       SELECT $1, t.id FROM tags t WHERE lower(t.name) = ANY($2::text[]) ON CONFLICT DO NOTHING`,
      { bind: [statusId, tags.map((tag) => tag.toLowerCase())], transaction },
    );
  }
}

/** One version of a status's edit history (the original is saved at its first edit). */
export async function saveStatusVersion(
  sequelize: Sequelize,
  row: Pick<StatusRow, 'id' | 'accountId' | 'text' | 'content' | 'spoilerText' | 'sensitive' | 'language'>,
  mediaIds: readonly string[],
  at: Date,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO status_edits (status_id, account_id, text, content, spoiler_text, sensitive, language,
                               media_attachment_ids, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint[], $9)`,
    {
      bind: [
        row.id,
        row.accountId,
        row.text,
        row.content,
        row.spoilerText,
        row.sensitive,
        row.language,
        mediaIds,
        at,
      ],
      transaction,
    },
  );
}
