import { QueryTypes, type Sequelize } from 'sequelize';
import { randomToken, sha256Hex } from '../oauth/token-crypto.js';

/** Mastodon's default cap on the sign-in sessions one account keeps. */
export const DEFAULT_MAX_SESSION_ACTIVATIONS = 10;
// Writing last_seen_at on every page view would turn each read into a write.
const LAST_SEEN_GRANULARITY_MS = 60 * 1000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionActivation {
  id: string;
  userId: string;
  userAgent: string;
  ip: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

interface ActivationRow {
  id: string;
  user_id: string;
  user_agent: string;
  ip: string | null;
  created_at: Date;
  last_seen_at: Date;
}

/** Revocable sign-in sessions of the web pages: the browser holds a random token, we keep its hash. */
export class SessionActivations {
  constructor(private readonly deps: { sequelize: Sequelize; maxPerUser: number }) {}

  /** Starts a session and drops the user's oldest ones beyond the cap; returns the cookie's token. */
  async activate(userId: string, meta: { userAgent: string; ip: string | null }): Promise<string> {
    const token = randomToken();
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.deps.sequelize.query(
        `INSERT INTO session_activations (user_id, token_hash, user_agent, ip, created_at, last_seen_at)
         VALUES ($1, $2, $3, $4, now(), now())`,
        { bind: [userId, sha256Hex(token), meta.userAgent.slice(0, 1000), meta.ip], transaction },
      );
      await this.deps.sequelize.query(
        `DELETE FROM session_activations WHERE user_id = $1 AND id NOT IN (
           SELECT id FROM session_activations WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2)`,
        { bind: [userId, this.deps.maxPerUser], transaction },
      );
    });
    return token;
  }

  /** The live session behind a cookie token, or null (unknown, revoked or dropped by the cap). */
  async lookup(token: string | undefined): Promise<SessionActivation | null> {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return null;
    const [row] = await this.deps.sequelize.query<ActivationRow>(
      'SELECT id, user_id, user_agent, host(ip) AS ip, created_at, last_seen_at FROM session_activations WHERE token_hash = $1',
      { bind: [sha256Hex(token)], type: QueryTypes.SELECT },
    );
    if (!row) return null;
    if (Date.now() - row.last_seen_at.getTime() > LAST_SEEN_GRANULARITY_MS) {
      await this.deps.sequelize.query('UPDATE session_activations SET last_seen_at = now() WHERE id = $1', {
        bind: [row.id],
      });
    }
    return toActivation(row);
  }

  /** Ends the session behind a cookie token (sign-out); unknown tokens are already gone. */
  async deactivate(token: string | undefined): Promise<void> {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return;
    await this.deps.sequelize.query('DELETE FROM session_activations WHERE token_hash = $1', {
      bind: [sha256Hex(token)],
    });
  }

  /** A user's sessions, newest first (for the settings page). */
  async list(userId: string): Promise<SessionActivation[]> {
    const rows = await this.deps.sequelize.query<ActivationRow>(
      `SELECT id, user_id, user_agent, host(ip) AS ip, created_at, last_seen_at FROM session_activations
        WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
      { bind: [userId], type: QueryTypes.SELECT },
    );
    return rows.map(toActivation);
  }

  /** Ends one of a user's sessions by id (settings page, "revoke"); false when it was not theirs. */
  async revoke(userId: string, id: string): Promise<boolean> {
    if (!/^\d{1,19}$/.test(id)) return false;
    const [, result] = await this.deps.sequelize.query(
      'DELETE FROM session_activations WHERE user_id = $1 AND id = $2',
      { bind: [userId, id] },
    );
    return ((result as { rowCount?: number } | undefined)?.rowCount ?? 0) > 0;
  }
}

function toActivation(row: ActivationRow): SessionActivation {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    userAgent: row.user_agent,
    ip: row.ip,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}
