import { randomUUID, type webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { refused } from '../users/user.errors.js';
import { isUserId } from '../users/user.store.js';
import { hmacVerifyKey, verifyHmacJwt } from './jwt-verify.js';

/** The reference's messages for session operations. */
export const SESSION_MESSAGES = {
  cannotRefresh: 'Cannot refresh the token',
  tokenNotFound: 'Token does not exist',
  tokenInvalid: 'Token is not a valid JWT',
} as const;

/** Why an access token was refused; the events app sends it as `details: ":<reason>"` with a 401. */
export type AccessTokenFailure = 'token_expired' | 'invalid_token' | 'invalid_issuer' | 'invalid_type';

export type AccessCheck =
  | {
      ok: true;
      userId: string;
      jti: string;
      expiresAt: Date;
      /** The session (its refresh token's id) the token was issued with; absent from older tokens. */
      sessionId: string | undefined;
    }
  | { ok: false; reason: AccessTokenFailure };

/** An access token that passed every check. */
export type AcceptedAccess = Extract<AccessCheck, { ok: true }>;

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface JwtSessionsOptions {
  sequelize: Sequelize;
  /** HMAC key (the apps' `JWT_SECRET`); at least 32 bytes. */
  secret: string | Uint8Array;
  /** `iss` claim, checked on verification. */
  issuer?: string;
  algorithm?: 'HS256' | 'HS512';
  accessTtlSeconds?: number;
  refreshTtlSeconds?: number;
  /** The clock, for tests. */
  now?: () => Date;
}

export const MIN_SECRET_BYTES = 32;
export const ACCESS_TTL_SECONDS = 15 * 60;
export const REFRESH_TTL_SECONDS = 60 * 24 * 3600;

const SUBJECT_PREFIX = 'User:';
// Verified access tokens remembered at once (about 4 MB at most).
const VERIFIED_ACCESS_MAX = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RefreshClaims {
  userId: string;
  jti: string;
}

interface VerifiedAccess {
  userId: string;
  jti: string;
  exp: number;
  sessionId: string | undefined;
}

/**
 * Signed access/refresh pairs for the events service. Access tokens are checked without the database
 * (authenticated reads must not pay for a query); refresh tokens have a row in `refresh_tokens`, so
 * they can be revoked, and every refresh replaces the presented token (rotation). Presenting a token
 * that was already rotated means someone kept a copy: the chain that grew from it is revoked.
 */
export class JwtSessions {
  private readonly sequelize: Sequelize;
  private readonly key: Uint8Array;
  private readonly issuer: string;
  private readonly algorithm: 'HS256' | 'HS512';
  private readonly accessTtl: number;
  private readonly refreshTtl: number;
  private readonly now: () => Date;
  /** The same secret as a WebCrypto key, made once: jose verifies with it on every check. */
  private readonly verifyKey: Promise<webcrypto.CryptoKey>;
  /**
   * Access tokens already verified, until their `exp`: a client sends the same token for 15 minutes,
   * so its HMAC and JSON need checking once. Oldest first, bounded; only valid tokens are kept.
   */
  private readonly verifiedAccess = new Map<string, VerifiedAccess>();

  constructor(options: JwtSessionsOptions) {
    const key =
      typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret;
    if (key.byteLength < MIN_SECRET_BYTES) {
      throw new Error(`The JWT secret must be at least ${MIN_SECRET_BYTES} bytes long`);
    }
    this.sequelize = options.sequelize;
    this.key = key;
    this.issuer = options.issuer ?? 'agora';
    this.algorithm = options.algorithm ?? 'HS512';
    this.verifyKey = hmacVerifyKey(key, this.algorithm);
    this.accessTtl = options.accessTtlSeconds ?? ACCESS_TTL_SECONDS;
    this.refreshTtl = options.refreshTtlSeconds ?? REFRESH_TTL_SECONDS;
    this.now = options.now ?? (() => new Date());
  }

  /** A new session for the user: an access token and a stored refresh token. */
  async issuePair(user: { id: string }): Promise<TokenPair> {
    const { pair, refreshJti, issuedAt, expiresAt } = await this.signPair(user.id);
    await this.sequelize.query(
      'INSERT INTO refresh_tokens (jti, user_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)',
      { bind: [refreshJti, user.id, issuedAt, expiresAt], type: QueryTypes.INSERT },
    );
    return pair;
  }

  /** Checks signature, issuer, type and expiry; no database access. */
  async verifyAccess(token: string): Promise<AccessCheck> {
    const known = this.cachedAccess(token);
    if (known) return known;
    const verified = await this.verify(token, 'access');
    if (!verified.ok) return verified;
    const { userId, jti, exp, sessionId } = verified;
    this.verifiedAccess.delete(token);
    if (this.verifiedAccess.size >= VERIFIED_ACCESS_MAX) {
      this.verifiedAccess.delete(this.verifiedAccess.keys().next().value!);
    }
    const entry = { userId, jti, exp, sessionId };
    this.verifiedAccess.set(token, entry);
    return accessCheck(entry);
  }

  /**
   * `verifyAccess` without the promise, for a token it accepted before and that has not expired since
   * (a client sends one token for 15 minutes); undefined when only `verifyAccess` can tell.
   */
  cachedAccess(token: string): AcceptedAccess | undefined {
    const known = this.verifiedAccess.get(token);
    // Expired as the full check says it (exp at or before the current second): that check answers why.
    if (known && known.exp > Math.floor(this.now().getTime() / 1000)) return accessCheck(known);
    return undefined;
  }

  /**
   * Exchanges a live refresh token for a new pair and revokes it. Expired, revoked, unknown or
   * malformed tokens, and accounts that are gone or disabled: "Cannot refresh the token".
   */
  async refresh(refreshToken: string): Promise<TokenPair & { userId: string }> {
    const claims = await this.refreshClaims(refreshToken);
    if (!claims) throw refused(SESSION_MESSAGES.cannotRefresh);
    const outcome = await this.sequelize.transaction(async (transaction) => {
      const now = this.now();
      // Row lock: of two concurrent refreshes with one token, the second sees it revoked.
      const [current] = await this.sequelize.query<{
        revoked_at: Date | null;
        replaced_by: string | null;
        expires_at: Date;
        disabled: boolean;
      }>(
        `SELECT t.revoked_at, t.replaced_by, t.expires_at, u.disabled
           FROM refresh_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.jti = $1 AND t.user_id = $2
          FOR UPDATE OF t`,
        { bind: [claims.jti, claims.userId], type: QueryTypes.SELECT, transaction },
      );
      if (!current || current.disabled || current.expires_at <= now) return { refused: true as const };
      if (current.revoked_at) {
        if (current.replaced_by !== null) await this.revokeChain(claims.jti, transaction);
        return { refused: true as const };
      }
      const next = await this.signPair(claims.userId);
      await this.sequelize.query(
        'INSERT INTO refresh_tokens (jti, user_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)',
        { bind: [next.refreshJti, claims.userId, next.issuedAt, next.expiresAt], transaction },
      );
      await this.sequelize.query(
        'UPDATE refresh_tokens SET revoked_at = $2, replaced_by = $3 WHERE jti = $1',
        { bind: [claims.jti, now, next.refreshJti], transaction },
      );
      return { refused: false as const, pair: next.pair };
    });
    if (outcome.refused) throw refused(SESSION_MESSAGES.cannotRefresh);
    return { ...outcome.pair, userId: claims.userId };
  }

  /**
   * Revokes one refresh token (logout). With `userId`, a token of another user counts as unknown.
   * Errors as the reference: "Token is not a valid JWT", "Token does not exist".
   */
  async logout(refreshToken: string, userId?: string): Promise<void> {
    const claims = await this.refreshClaims(refreshToken);
    if (!claims) throw refused(SESSION_MESSAGES.tokenInvalid);
    if (userId !== undefined && claims.userId !== userId) throw refused(SESSION_MESSAGES.tokenNotFound);
    const [, revoked] = await this.sequelize.query(
      'UPDATE refresh_tokens SET revoked_at = $2 WHERE jti = $1 AND user_id = $3 AND revoked_at IS NULL',
      { bind: [claims.jti, this.now(), claims.userId], type: QueryTypes.UPDATE },
    );
    if (revoked === 0) throw refused(SESSION_MESSAGES.tokenNotFound);
  }

  /**
   * Ends every session of a user (password reset or change, account disabled…) but `except` (the
   * `sessionId` of the caller's access token, kept on a password change); returns how many were live.
   * Access tokens already handed out keep working until they expire (15 minutes): they are checked
   * without the database.
   */
  async revokeAllFor(userId: string, options: { except?: string | undefined } = {}): Promise<number> {
    const [, revoked] = await this.sequelize.query(
      `UPDATE refresh_tokens SET revoked_at = $2
        WHERE user_id = $1 AND revoked_at IS NULL AND jti IS DISTINCT FROM $3`,
      { bind: [userId, this.now(), options.except ?? null], type: QueryTypes.UPDATE },
    );
    return revoked;
  }

  /** Deletes rows of refresh tokens that expired before `now`; returns how many. */
  async purgeExpired(): Promise<number> {
    const [result] = await this.sequelize.query<{ deleted: number }>(
      'WITH gone AS (DELETE FROM refresh_tokens WHERE expires_at < $1 RETURNING 1) SELECT count(*)::int AS deleted FROM gone',
      { bind: [this.now()], type: QueryTypes.SELECT },
    );
    return result?.deleted ?? 0;
  }

  /** Revokes every token that descends from `jti` by rotation: the copies the thief or owner still holds. */
  private async revokeChain(jti: string, transaction: Transaction): Promise<void> {
    await this.sequelize.query(
      `WITH RECURSIVE chain (jti) AS (
         SELECT replaced_by FROM refresh_tokens WHERE jti = $1 AND replaced_by IS NOT NULL
         UNION
         SELECT t.replaced_by FROM refresh_tokens t JOIN chain c ON t.jti = c.jti WHERE t.replaced_by IS NOT NULL
       )
       UPDATE refresh_tokens SET revoked_at = $2 WHERE jti IN (SELECT jti FROM chain) AND revoked_at IS NULL`,
      { bind: [jti, this.now()], type: QueryTypes.UPDATE, transaction },
    );
  }

  private async refreshClaims(token: string): Promise<RefreshClaims | null> {
    const verified = await this.verify(token, 'refresh');
    if (!verified.ok || !UUID.test(verified.jti)) return null;
    return { userId: verified.userId, jti: verified.jti };
  }

  private async signPair(userId: string): Promise<{
    pair: TokenPair;
    refreshJti: string;
    issuedAt: Date;
    expiresAt: Date;
  }> {
    const now = this.now();
    const iat = Math.floor(now.getTime() / 1000);
    const refreshJti = randomUUID();
    const [accessToken, refreshToken] = await Promise.all([
      // `sid`: the session the access token belongs to, so a password change can keep the caller's.
      this.sign(userId, 'access', randomUUID(), iat, iat + this.accessTtl, { sid: refreshJti }),
      this.sign(userId, 'refresh', refreshJti, iat, iat + this.refreshTtl),
    ]);
    return {
      pair: { accessToken, refreshToken },
      refreshJti,
      issuedAt: new Date(iat * 1000),
      expiresAt: new Date((iat + this.refreshTtl) * 1000),
    };
  }

  private sign(
    userId: string,
    typ: 'access' | 'refresh',
    jti: string,
    iat: number,
    exp: number,
    extra: Record<string, string> = {},
  ): Promise<string> {
    return new SignJWT({ ...extra, typ })
      .setProtectedHeader({ alg: this.algorithm, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(`${SUBJECT_PREFIX}${userId}`)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
  }

  private async verify(
    token: string,
    typ: 'access' | 'refresh',
  ): Promise<({ ok: true } & VerifiedAccess) | { ok: false; reason: AccessTokenFailure }> {
    const checked = await verifyHmacJwt(token, {
      key: await this.verifyKey,
      algorithm: this.algorithm,
      issuer: this.issuer,
      now: this.now(),
    });
    if (!checked.ok) return checked;
    const { payload } = checked;
    if (payload.typ !== typ) return { ok: false, reason: 'invalid_type' };
    if (
      typeof payload.sub !== 'string' ||
      !payload.sub.startsWith(SUBJECT_PREFIX) ||
      !isUserId(payload.sub.slice(SUBJECT_PREFIX.length))
    ) {
      return { ok: false, reason: 'invalid_token' };
    }
    if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number') {
      return { ok: false, reason: 'invalid_token' };
    }
    const sessionId = typeof payload.sid === 'string' && UUID.test(payload.sid) ? payload.sid : undefined;
    return {
      ok: true,
      userId: payload.sub.slice(SUBJECT_PREFIX.length),
      jti: payload.jti,
      exp: payload.exp,
      sessionId,
    };
  }
}

function accessCheck(verified: VerifiedAccess): AcceptedAccess {
  const { userId, jti, exp, sessionId } = verified;
  return { ok: true, userId, jti, expiresAt: new Date(exp * 1000), sessionId };
}
