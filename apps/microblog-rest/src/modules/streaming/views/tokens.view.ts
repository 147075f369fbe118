import { QueryTypes, type Sequelize } from 'sequelize';

/** Which of the tokens that hold streams open are still valid (not revoked); a primary-key probe each. */
export async function liveTokenIds(sequelize: Sequelize, tokenIds: readonly string[]): Promise<Set<string>> {
  if (tokenIds.length === 0) return new Set();
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id::text AS id FROM oauth_access_tokens WHERE id = ANY($1::bigint[]) AND revoked_at IS NULL`,
    { bind: [tokenIds], type: QueryTypes.SELECT },
  );
  return new Set(rows.map((row) => row.id));
}
