import { isRowId } from '@agora/db';
import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agora/auth';
import { BadInput, Forbidden, isUuid } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';

/** A private feed token: all the user's profiles' events, or one profile's (`actorId`). */
export interface FeedTokenRecord {
  token: string;
  userId: string;
  actorId: string | null;
}

/** What `deleteFeedToken` answers: the ids the token belonged to. */
export interface DeletedFeedToken {
  user: { id: string };
  actor: { id: string } | null;
}

const COLUMNS = 'token::text AS token, user_id::text AS "userId", actor_id::text AS "actorId"';

/** The reference's refusals, plain strings (answered as unknown_error). */
export const FEED_TOKEN_MESSAGES = {
  notOwned: 'Profile is not owned by authenticated user',
  invalid: 'Token is not a valid UUID',
  unknown: 'Token does not exist',
  othersToken: "You don't have permission to delete this token",
  createAnonymous: 'You are not allowed to create a feed token if not connected',
  deleteAnonymous: 'You are not allowed to delete a feed token if not connected',
} as const;

/** Feed tokens (table `feed_tokens`): created, listed and deleted by their user only. */
export class FeedTokenService {
  constructor(private readonly sequelize: Sequelize) {}

  /** A new token for the user, or for one of its profiles. */
  async create(user: SessionUser, actorId: string | null | undefined): Promise<FeedTokenRecord> {
    if (actorId !== null && actorId !== undefined && !(await this.ownsProfile(user.id, actorId))) {
      throw new BadInput(FEED_TOKEN_MESSAGES.notOwned);
    }
    const [row] = await this.sequelize.query<FeedTokenRecord>(
      `INSERT INTO feed_tokens (token, user_id, actor_id) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      { bind: [randomUUID(), user.id, actorId ?? null], type: QueryTypes.SELECT },
    );
    return row!;
  }

  async delete(user: SessionUser, token: string): Promise<DeletedFeedToken> {
    if (!isUuid(token)) throw new BadInput(FEED_TOKEN_MESSAGES.invalid);
    const [found] = await this.sequelize.query<FeedTokenRecord>(
      `SELECT ${COLUMNS} FROM feed_tokens WHERE token = $1`,
      { bind: [token], type: QueryTypes.SELECT },
    );
    if (!found) throw new BadInput(FEED_TOKEN_MESSAGES.unknown);
    if (found.userId !== user.id)
      throw new Forbidden(FEED_TOKEN_MESSAGES.othersToken, { code: 'unknown_error' });
    await this.sequelize.query('DELETE FROM feed_tokens WHERE token = $1', { bind: [token] });
    return { user: { id: user.id }, actor: found.actorId ? { id: found.actorId } : null };
  }

  private async ownsProfile(userId: string, actorId: string): Promise<boolean> {
    if (!isRowId(actorId)) return false;
    const rows = await this.sequelize.query(
      "SELECT 1 FROM actors WHERE id = $1 AND user_id = $2 AND type = 'Person'",
      { bind: [actorId, userId], type: QueryTypes.SELECT },
    );
    return rows.length > 0;
  }
}
