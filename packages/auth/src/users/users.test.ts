import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { AppError, BadInput } from '@agora/core';
import { createSequelize, runMigrations } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { authMigrationSet } from '../migrations/index.js';
import { hashPassword } from '../passwords/password-hash.js';
import { canResend } from './user.tokens.js';
import { UserStore } from './user.store.js';

// Argon2 at its cheapest: these tests are about the flows, not the hash cost.
const CHEAP = { timeCost: 1, memoryCost: 1024, parallelism: 1 };

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the promise to be rejected');
}

describe('UserStore', () => {
  const database = withTestDatabase('auth_users', { family: 'auth', sets: () => [authMigrationSet()] });
  let sequelize: Sequelize;
  let clock: Date;
  let users: UserStore;
  let counter = 0;
  const uniqueEmail = (): string => `person${++counter}@example.org`;

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [authMigrationSet()]);
    clock = new Date('2026-11-22T10:00:00Z');
    users = new UserStore({ sequelize, passwordHashParams: CHEAP, now: () => clock });
  });
  after(async () => {
    await sequelize.close();
  });

  async function storedHashes(id: string): Promise<Record<string, string | null>> {
    const [row] = await sequelize.query<Record<string, string | null>>(
      `SELECT password_hash, confirmation_token_hash, reset_password_token_hash, email_change_token_hash
         FROM users WHERE id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return row!;
  }

  it('registers, confirms with the emailed token once, then signs in', async () => {
    const { user, confirmationToken } = await users.create({
      email: 'alice@example.org',
      password: 'secret-1',
    });
    expect(user.id).to.match(/^\d+$/);
    expect(user.role).to.equal('USER');
    expect(user.confirmedAt).to.equal(null);
    expect(user.confirmationSentAt?.toISOString()).to.equal(clock.toISOString());
    expect(confirmationToken).to.match(/^[A-Za-z0-9_-]{43}$/);
    // Only a digest is stored, never the token or the password.
    const stored = await storedHashes(user.id);
    expect(stored.confirmation_token_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(confirmationToken);
    expect(stored.password_hash).to.match(/^\$argon2id\$/);

    expect((await rejection(users.authenticate('alice@example.org', 'secret-1'))).message).to.equal(
      'User not found',
    );
    const confirmed = await users.confirm(confirmationToken!);
    expect(confirmed.confirmedAt?.toISOString()).to.equal(clock.toISOString());
    const again = await rejection(users.confirm(confirmationToken!));
    expect([again.kind, again.code]).to.deep.equal(['NotFound', 'invalid_token']);

    const signedIn = await users.authenticate('ALICE@EXAMPLE.ORG', 'secret-1');
    expect(signedIn.id).to.equal(user.id);
    expect(signedIn).to.not.have.property('passwordHash');
  });

  it('answers unknown and unconfirmed emails with "User not found" and a wrong password with the reference message', async () => {
    const unknown = await rejection(users.authenticate('nobody@example.org', 'whatever'));
    expect([unknown.kind, unknown.code, unknown.message]).to.deep.equal([
      'NotFound',
      'user_not_found',
      'User not found',
    ]);

    const email = uniqueEmail();
    await users.create({ email, password: 'secret-1', confirmed: true });
    const wrong = await rejection(users.authenticate(email, 'secret-2'));
    expect(wrong.message).to.equal('Impossible to authenticate, either your email or password are invalid.');
    expect(wrong.kind).to.equal('BadInput');
    // Issue 11 §7: a plain domain refusal, without the events API's `unknown_error` (each app maps it).
    expect([wrong.code, wrong.fields]).to.deep.equal([new BadInput('').code, undefined]);
  });

  it('refuses an email already used in another case, and a malformed email or short password', async () => {
    await users.create({ email: 'Bob@Example.org', password: 'secret-1' });
    const duplicate = await rejection(users.create({ email: 'bob@EXAMPLE.ORG', password: 'secret-1' }));
    expect(duplicate.fields).to.deep.equal({ email: ['This email is already used.'] });
    const upper = await rejection(users.create({ email: 'BOB@example.org', password: 'secret-1' }));
    expect(upper.fields).to.have.property('email');

    const malformed = await rejection(users.create({ email: 'not-an-email', password: 'secret-1' }));
    expect(malformed.fields).to.have.property('email');
    const short = await rejection(users.create({ email: uniqueEmail(), password: '12345' }));
    expect(short.fields?.password?.[0]).to.match(/at least 6 characters/);
  });

  it('trims the email and lower-cases its domain only', async () => {
    const { user } = await users.create({ email: '  Carol.Smith@Mail.EXAMPLE.org ', password: 'secret-1' });
    expect(user.email).to.equal('Carol.Smith@mail.example.org');
    expect((await users.findByEmail('carol.smith@MAIL.example.org'))?.id).to.equal(user.id);
    expect((await users.findById(user.id))?.email).to.equal('Carol.Smith@mail.example.org');
    expect(await users.findById('not-a-number')).to.equal(null);
    expect(await users.findById('9999999999999999999')).to.equal(null);
  });

  it('resets a password with a token that works once, and guards re-sending for 100 s', async () => {
    const email = uniqueEmail();
    const { user } = await users.create({ email, password: 'secret-1', confirmed: true });
    const issued = await users.issueResetToken(email);
    expect(issued?.user.id).to.equal(user.id);
    const tooSoon = await rejection(users.issueResetToken(email));
    expect(tooSoon.kind).to.equal('RateLimited');

    const reset = await users.resetPassword(issued!.token, 'secret-2');
    expect(reset.id).to.equal(user.id);
    expect((await storedHashes(user.id)).reset_password_token_hash).to.equal(null);
    const reused = await rejection(users.resetPassword(issued!.token, 'secret-3'));
    expect(reused.code).to.equal('invalid_token');

    expect((await rejection(users.authenticate(email, 'secret-1'))).message).to.match(/^Impossible/);
    expect((await users.authenticate(email, 'secret-2')).id).to.equal(user.id);
    expect(await users.issueResetToken('nobody@example.org')).to.equal(null);
  });

  it('lets a new email be requested after 100 s', () => {
    const sent = new Date('2026-01-01T00:00:00Z');
    expect(canResend(null, sent)).to.equal(true);
    expect(canResend(sent, new Date(sent.getTime() + 99_999))).to.equal(false);
    expect(canResend(sent, new Date(sent.getTime() + 100_000))).to.equal(true);
  });

  it('re-sends a confirmation with a new token after the guard, the old link no longer working', async () => {
    const email = uniqueEmail();
    const { confirmationToken } = await users.create({ email, password: 'secret-1' });
    expect((await rejection(users.resendConfirmation(email))).kind).to.equal('RateLimited');
    clock = new Date(clock.getTime() + 100_000);
    const resent = await users.resendConfirmation(email);
    expect((await rejection(users.confirm(confirmationToken!))).code).to.equal('invalid_token');
    expect((await users.confirm(resent.token)).confirmedAt).to.not.equal(null);
    expect((await rejection(users.resendConfirmation(email))).message).to.equal(
      'No user to validate with this email was found',
    );
  });

  it('changes the email once the token sent to the new address comes back', async () => {
    const email = uniqueEmail();
    const { user } = await users.create({ email, password: 'secret-1', confirmed: true });
    const taken = uniqueEmail();
    await users.create({ email: taken, password: 'secret-1', confirmed: true });

    const messageOf = async (newEmail: string, password: string): Promise<string> =>
      (await rejection(users.requestEmailChange(user, newEmail, { password }))).message;
    expect(await messageOf('new@example.org', 'wrong-password')).to.equal('The password provided is invalid');
    expect(await messageOf(email.toUpperCase(), 'secret-1')).to.equal('The new email must be different');
    expect(await messageOf('nope', 'secret-1')).to.equal("The new email doesn't seem to be valid");
    expect(await messageOf(taken, 'secret-1')).to.equal('This email is already used.');

    const { token, user: pending } = await users.requestEmailChange(user, 'Renamed@Example.ORG', {
      password: 'secret-1',
    });
    expect(pending.email).to.equal(email);
    expect(pending.unconfirmedEmail).to.equal('Renamed@example.org');
    const changed = await users.confirmEmailChange(token);
    expect([changed.email, changed.unconfirmedEmail]).to.deep.equal(['Renamed@example.org', null]);
    expect((await rejection(users.confirmEmailChange(token))).code).to.equal('invalid_token');
    expect((await users.authenticate('renamed@example.org', 'secret-1')).id).to.equal(user.id);
  });

  it('refuses a pending email that someone registered in the meantime', async () => {
    const { user } = await users.create({ email: uniqueEmail(), password: 'secret-1', confirmed: true });
    const { token } = await users.requestEmailChange(user, 'race@example.org', { trusted: true });
    await users.create({ email: 'race@example.org', password: 'secret-1' });
    const refused = await rejection(users.confirmEmailChange(token));
    expect(refused.fields).to.deep.equal({ email: ['This email is already used.'] });
  });

  it('changes a password with the reference errors', async () => {
    const email = uniqueEmail();
    const { user } = await users.create({ email, password: 'secret-1', confirmed: true });
    expect((await rejection(users.changePassword(user, 'bad-guess', 'secret-2'))).message).to.equal(
      'The current password is invalid',
    );
    expect((await rejection(users.changePassword(user, 'secret-1', 'secret-1'))).message).to.equal(
      'The new password must be different',
    );
    expect((await rejection(users.changePassword(user, 'secret-1', 'short'))).fields).to.have.property(
      'password',
    );
    await users.changePassword(user, 'secret-1', 'secret-2');
    expect((await users.authenticate(email, 'secret-2')).id).to.equal(user.id);
  });

  it('replaces a hash made with outdated parameters when the password is verified', async () => {
    const email = uniqueEmail();
    const { user } = await users.create({ email, password: 'secret-1', confirmed: true });
    const before = (await storedHashes(user.id)).password_hash;
    const stronger = new UserStore({ sequelize, passwordHashParams: { ...CHEAP, memoryCost: 2048 } });
    await stronger.authenticate(email, 'secret-1');
    const after = (await storedHashes(user.id)).password_hash;
    expect(after).to.not.equal(before);
    expect(after).to.match(/m=2048/);
    expect((await stronger.authenticate(email, 'secret-1')).id).to.equal(user.id);
  });

  it('records sign-ins and purges accounts left unconfirmed for 48 hours', async () => {
    const { user } = await users.create({ email: uniqueEmail(), password: 'secret-1', confirmed: true });
    await users.recordSignIn(user, '192.0.2.1');
    const second = await users.recordSignIn(user, '192.0.2.2');
    expect([second.lastSignInIp, second.currentSignInIp]).to.deep.equal(['192.0.2.1', '192.0.2.2']);

    const stale = await users.create({ email: uniqueEmail(), password: 'secret-1' });
    clock = new Date(clock.getTime() + 48 * 3_600_000 + 1000);
    const fresh = await users.create({ email: uniqueEmail(), password: 'secret-1' });
    expect(await users.purgeUnconfirmed()).to.be.greaterThan(0);
    expect(await users.findById(stale.user.id)).to.equal(null);
    expect(await users.findById(fresh.user.id)).to.not.equal(null);
    expect(await users.findById(user.id)).to.not.equal(null);
  });

  it("removes an account, inside the caller's transaction when given one", async () => {
    const { user } = await users.create({ email: uniqueEmail(), password: 'secret-1', confirmed: true });
    await sequelize
      .transaction(async (transaction) => {
        expect(await users.remove(user, { transaction })).to.equal(true);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await users.findById(user.id)).to.not.equal(null);
    expect(await users.remove(user)).to.equal(true);
    expect(await users.findById(user.id)).to.equal(null);
    expect(await users.remove(user)).to.equal(false);
    expect(await users.remove({ id: 'nope' })).to.equal(false);
  });

  it("creates an account with a password hashed ahead, inside the caller's transaction", async () => {
    const email = uniqueEmail();
    const passwordHash = await hashPassword('secret-1', CHEAP);
    await sequelize
      .transaction(async (transaction) => {
        const { user, confirmationToken } = await users.create({ email, passwordHash }, { transaction });
        expect(confirmationToken).to.match(/^[A-Za-z0-9_-]{43}$/);
        // Seen inside the transaction (the taken-email check reads in it too), not outside.
        expect((await rejection(users.create({ email, passwordHash }, { transaction }))).message).to.equal(
          'This email is already used.',
        );
        expect(await users.findById(user.id)).to.equal(null);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await users.findByEmail(email)).to.equal(null);
    const { user, confirmationToken } = await users.create({ email, passwordHash });
    expect((await storedHashes(user.id)).password_hash).to.equal(passwordHash);
    await users.confirm(confirmationToken!);
    expect((await users.authenticate(email, 'secret-1')).id).to.equal(user.id);
  });
});
