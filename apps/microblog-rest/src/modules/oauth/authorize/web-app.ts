import { QueryTypes, type Sequelize } from 'sequelize';
import { randomToken, sha256Hex } from '../token-crypto.js';

export const WEB_APP_SCOPES = 'read write follow push';
// Any constant: serializes the check-and-create of processes booting at once.
const WEB_APP_LOCK = 0x6d62_7765; // "mbwe"

/**
 * The web frontend's own OAuth app (a superapp: its users are never asked to approve it), created on
 * boot when missing. Returns its client id.
 */
export async function ensureWebApplication(
  sequelize: Sequelize,
  input: { name: string; redirectUri: string },
): Promise<string> {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock($1)', { bind: [WEB_APP_LOCK], transaction });
    const [existing] = await sequelize.query<{ client_id: string }>(
      'SELECT client_id FROM oauth_applications WHERE superapp ORDER BY id LIMIT 1',
      { type: QueryTypes.SELECT, transaction },
    );
    if (existing) return existing.client_id;
    const clientId = randomToken();
    // Nobody outside this server uses the secret: it is thrown away, only its hash is kept.
    await sequelize.query(
      `INSERT INTO oauth_applications (name, website, redirect_uris, scopes, client_id, client_secret_hash, superapp, created_at, updated_at)
       VALUES ($1, NULL, $2, $3, $4, $5, true, now(), now())`,
      {
        bind: [
          [...input.name].slice(0, 60).join(''),
          [input.redirectUri],
          WEB_APP_SCOPES,
          clientId,
          sha256Hex(randomToken()),
        ],
        transaction,
      },
    );
    return clientId;
  });
}
