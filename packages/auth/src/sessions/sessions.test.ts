import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { AppError } from '@agora/core';
import { createSequelize, runMigrations } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { authMigrationSet } from '../migrations/index.js';
import { UserStore, type User } from '../users/user.store.js';
import { JwtSessions } from './jwt-sessions.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const CHEAP = { timeCost: 1, memoryCost: 1024, parallelism: 1 };

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  throw new Error('expected the promise to be rejected');
}

describe('JwtSessions', () => {
  const database = withTestDatabase('auth_sessions', { family: 'auth', sets: () => [authMigrationSet()] });
  let sequelize: Sequelize;
  let users: UserStore;
  let clock: Date;
  let sessions: JwtSessions;
  let counter = 0;

  async function newUser(): Promise<User> {
    const { user } = await users.create({
      email: `s${++counter}@example.org`,
      password: 'secret-1',
      confirmed: true,
    });
    return user;
  }

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [authMigrationSet()]);
    users = new UserStore({ sequelize, passwordHashParams: CHEAP });
    clock = new Date('2026-11-22T10:00:00Z');
    sessions = new JwtSessions({ sequelize, secret: SECRET, now: () => clock });
  });
  after(async () => {
    await sequelize.close();
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => new JwtSessions({ sequelize, secret: 'too-short' })).to.throw(/at least 32 bytes/);
  });

  it('issues a pair, verifies the access token, rotates on refresh and ends at logout', async () => {
    const user = await newUser();
    const pair = await sessions.issuePair(user);
    const access = await sessions.verifyAccess(pair.accessToken);
    expect(access).to.include({ ok: true, userId: user.id });
    // A refresh token is not an access token.
    expect(await sessions.verifyAccess(pair.refreshToken)).to.deep.equal({
      ok: false,
      reason: 'invalid_type',
    });

    const next = await sessions.refresh(pair.refreshToken);
    expect(next.userId).to.equal(user.id);
    expect(next.refreshToken).to.not.equal(pair.refreshToken);
    expect(await sessions.verifyAccess(next.accessToken)).to.include({ ok: true, userId: user.id });
    expect(await refusal(sessions.refresh(pair.refreshToken))).to.equal('Cannot refresh the token');

    // Reusing the old token revoked the chain, so start a fresh session for the logout part.
    const session = await sessions.issuePair(user);
    await sessions.logout(session.refreshToken, user.id);
    expect(await refusal(sessions.refresh(session.refreshToken))).to.equal('Cannot refresh the token');
    expect(await refusal(sessions.logout(session.refreshToken))).to.equal('Token does not exist');
    expect(await refusal(sessions.logout('garbage'))).to.equal('Token is not a valid JWT');
  });

  it('reports an expired access token as token_expired, after 15 minutes', async () => {
    const pair = await sessions.issuePair(await newUser());
    clock = new Date(clock.getTime() + 14 * 60_000);
    expect((await sessions.verifyAccess(pair.accessToken)).ok).to.equal(true);
    clock = new Date(clock.getTime() + 61_000);
    expect(await sessions.verifyAccess(pair.accessToken)).to.deep.equal({
      ok: false,
      reason: 'token_expired',
    });
    // The refresh token lives on.
    expect((await sessions.refresh(pair.refreshToken)).accessToken).to.be.a('string');
  });

  it('remembers an accepted access token until it expires, and never a refused one', async () => {
    const pair = await sessions.issuePair(await newUser());
    expect(sessions.cachedAccess(pair.accessToken)).to.equal(undefined);
    const verified = await sessions.verifyAccess(pair.accessToken);
    expect(sessions.cachedAccess(pair.accessToken)).to.deep.equal(verified);
    expect(sessions.cachedAccess(pair.refreshToken)).to.equal(undefined);
    await sessions.verifyAccess(pair.refreshToken);
    expect(sessions.cachedAccess(pair.refreshToken)).to.equal(undefined);
    clock = new Date(clock.getTime() + 15 * 60_000);
    expect(sessions.cachedAccess(pair.accessToken)).to.equal(undefined);
    expect(await sessions.verifyAccess(pair.accessToken)).to.deep.equal({
      ok: false,
      reason: 'token_expired',
    });
  });

  it('refuses a refresh token after 60 days', async () => {
    const pair = await sessions.issuePair(await newUser());
    clock = new Date(clock.getTime() + 60 * 24 * 3_600_000 + 1000);
    expect(await refusal(sessions.refresh(pair.refreshToken))).to.equal('Cannot refresh the token');
  });

  it('calls a tampered, foreign or malformed token invalid_token', async () => {
    const user = await newUser();
    const { accessToken } = await sessions.issuePair(user);
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'User:1' })).toString('base64url');
    expect(await sessions.verifyAccess(`${header}.${forged}.${signature}`)).to.deep.equal({
      ok: false,
      reason: 'invalid_token',
    });
    const otherKey = new JwtSessions({ sequelize, secret: `${SECRET}-other`, now: () => clock });
    const foreign = await otherKey.issuePair(user);
    expect(await sessions.verifyAccess(foreign.accessToken)).to.deep.equal({
      ok: false,
      reason: 'invalid_token',
    });
    expect(await sessions.verifyAccess('not.a.jwt')).to.deep.equal({ ok: false, reason: 'invalid_token' });
    const otherIssuer = new JwtSessions({ sequelize, secret: SECRET, issuer: 'elsewhere', now: () => clock });
    const elsewhere = await otherIssuer.issuePair(user);
    expect(await sessions.verifyAccess(elsewhere.accessToken)).to.deep.equal({
      ok: false,
      reason: 'invalid_issuer',
    });
  });

  it('revokes the newer tokens when a rotated refresh token is presented again', async () => {
    const user = await newUser();
    const first = await sessions.issuePair(user);
    const second = await sessions.refresh(first.refreshToken);
    const third = await sessions.refresh(second.refreshToken);
    // Someone replays the first token: refused, and the live third one dies with it.
    expect(await refusal(sessions.refresh(first.refreshToken))).to.equal('Cannot refresh the token');
    expect(await refusal(sessions.refresh(third.refreshToken))).to.equal('Cannot refresh the token');
  });

  it('lets one of two concurrent refreshes with the same token win', async () => {
    const { refreshToken } = await sessions.issuePair(await newUser());
    const results = await Promise.allSettled([
      sessions.refresh(refreshToken),
      sessions.refresh(refreshToken),
    ]);
    expect(results.map((result) => result.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
  });

  it('ends every session of a user but the one kept, and those of a deleted user', async () => {
    const user = await newUser();
    const a = await sessions.issuePair(user);
    const b = await sessions.issuePair(user);
    expect(await sessions.revokeAllFor(user.id)).to.equal(2);
    expect(await refusal(sessions.refresh(a.refreshToken))).to.equal('Cannot refresh the token');
    expect(await refusal(sessions.refresh(b.refreshToken))).to.equal('Cannot refresh the token');

    // A password change keeps the caller's session: the one its access token names.
    const caller = await sessions.issuePair(user);
    const other = await sessions.issuePair(user);
    const check = await sessions.verifyAccess(caller.accessToken);
    expect(check.ok && check.sessionId).to.be.a('string');
    expect(await sessions.revokeAllFor(user.id, { except: check.ok ? check.sessionId : undefined })).to.equal(
      1,
    );
    expect(await refusal(sessions.refresh(other.refreshToken))).to.equal('Cannot refresh the token');
    const renewed = await sessions.refresh(caller.refreshToken);
    // The rotated pair names its new session.
    const renewedCheck = await sessions.verifyAccess(renewed.accessToken);
    expect(renewedCheck.ok && renewedCheck.sessionId)
      .to.be.a('string')
      .and.not.equal(check.ok && check.sessionId);

    const gone = await newUser();
    const c = await sessions.issuePair(gone);
    await users.model.destroy({ where: { id: gone.id } });
    expect(await refusal(sessions.refresh(c.refreshToken))).to.equal('Cannot refresh the token');
  });
});
