import { Op, UniqueConstraintError, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { BadInput } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import {
  hashPassword,
  verifyAgainstNothing,
  verifyPassword,
  type PasswordHashParams,
} from '../passwords/password-hash.js';
import { validatePassword } from '../passwords/password-policy.js';
import type { Role } from '../roles/roles.js';
import { isValidEmail, normalizeEmail } from './email-address.js';
import {
  USER_MESSAGES,
  emailError,
  invalidToken,
  passwordHashMissing,
  refused,
  resendTooSoon,
  userNotFound,
} from './user.errors.js';
import { defineUserModel, type UserInstance, type UserModel, type UserRow } from './user.model.js';
import {
  RESEND_INTERVAL_SECONDS,
  UNCONFIRMED_GRACE_PERIOD_HOURS,
  generateToken,
  hashToken,
  secondsUntilResend,
} from './user.tokens.js';

/** An account as services see it: everything but the password and token hashes. */
export interface User {
  id: string;
  email: string;
  role: Role;
  locale: string;
  provider: string | null;
  disabled: boolean;
  /** False for accounts of an external provider, which cannot sign in with a password. */
  hasPassword: boolean;
  confirmedAt: Date | null;
  confirmationSentAt: Date | null;
  resetPasswordSentAt: Date | null;
  unconfirmedEmail: string | null;
  lastSignInAt: Date | null;
  lastSignInIp: string | null;
  currentSignInAt: Date | null;
  currentSignInIp: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Who a caller is and what they may do: the part of a user that guards and most operations read on
 * every authenticated request. The sign-in history and token timestamps stay behind (`findById`).
 */
export type SessionUser = Pick<
  User,
  'id' | 'email' | 'role' | 'locale' | 'provider' | 'disabled' | 'hasPassword' | 'confirmedAt' | 'createdAt'
>;

/** Anything that names a user by id. */
export interface UserRef {
  id: string;
}

export interface CreateUserInput {
  email: string;
  /** Required unless `provider` names an external login provider, or `passwordHash` is given. */
  password?: string;
  /**
   * Instead of `password`: one the caller checked against its policy and hashed (`hashPassword`)
   * before opening the transaction it passes, so the transaction does not wait on Argon2.
   */
  passwordHash?: string;
  role?: Role;
  locale?: string;
  /** Created already confirmed (admin tool, tests): no confirmation token. */
  confirmed?: boolean;
  /** External login provider (e.g. "ldap"); null = this database. */
  provider?: string;
}

/** A user together with a single-use token to email them; the plaintext exists only here. */
export interface UserWithToken {
  user: User;
  token: string;
}

export interface UserStoreOptions {
  sequelize: Sequelize;
  /** Argon2 cost parameters; tests pass cheap ones. Defaults to the passwords module's. */
  passwordHashParams?: Partial<PasswordHashParams>;
  /** The clock, for tests. */
  now?: () => Date;
}

/** How `requestEmailChange` is authorised: the user's current password, or a trusted caller (an admin). */
export type EmailChangeAuthorisation = { password: string } | { trusted: true };

/**
 * Credentials of accounts: registration, confirmation, password reset, email change, password change
 * and sign-in. Email tokens never expire (as the reference) and are cleared when used; only their
 * SHA-256 digests are stored. Every write is one conditional statement, so a token works once even
 * under concurrent requests.
 */
export class UserStore {
  readonly model: UserModel;
  private readonly sequelize: Sequelize;
  /** Argon2 parameters of new hashes; code that hashes for these users elsewhere passes them on. */
  readonly hashParams: Partial<PasswordHashParams> | undefined;
  private readonly now: () => Date;

  constructor(options: UserStoreOptions) {
    this.model = defineUserModel(options.sequelize);
    this.sequelize = options.sequelize;
    this.hashParams = options.passwordHashParams;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Registers an account. Unconfirmed accounts come with their confirmation token (to email once).
   * Errors: BadInput on `email` (format, already used) or `password` (policy). With `transaction`,
   * the user is created in the caller's transaction (an app's sign-up that creates more with it).
   */
  async create(
    input: CreateUserInput,
    options: { transaction?: Transaction } = {},
  ): Promise<{ user: User; confirmationToken: string | null }> {
    const { transaction } = options;
    const email = normalizeEmail(input.email);
    if (!isValidEmail(email)) throw emailError(USER_MESSAGES.emailInvalid);
    if (input.password === undefined && input.passwordHash === undefined && !input.provider) {
      throw new BadInput('A password is required', { fields: { password: ['A password is required'] } });
    }
    if (input.password !== undefined) validatePassword(input.password);
    // Checked before hashing so a taken email does not cost an Argon2 run; the index still decides races.
    if (await this.findRowByEmail(email, transaction)) throw emailError(USER_MESSAGES.emailTaken);
    const passwordHash =
      input.password === undefined
        ? (input.passwordHash ?? null)
        : await hashPassword(input.password, this.hashParams);
    const now = this.now();
    const confirmationToken = input.confirmed ? null : generateToken();
    try {
      const row = await this.model.create(
        {
          email,
          passwordHash,
          role: input.role ?? 'USER',
          locale: input.locale ?? 'en',
          provider: input.provider ?? null,
          confirmedAt: input.confirmed ? now : null,
          confirmationSentAt: confirmationToken ? now : null,
          confirmationTokenHash: confirmationToken ? hashToken(confirmationToken) : null,
          // On our clock, which the unconfirmed-account purge also reads.
          createdAt: now,
        },
        { transaction },
      );
      return { user: toUser(row.get()), confirmationToken };
    } catch (error) {
      throw mapUniqueEmail(error);
    }
  }

  async findById(id: string): Promise<User | null> {
    if (!isUserId(id)) return null;
    // Runs on every authenticated read: one prepared statement, no model instance.
    const [row] = await FIND_BY_ID_STATEMENT.rows(this.sequelize, [id]);
    return row ? toUser(row) : null;
  }

  /** The session projection of a user (`SessionUser`): half the columns of `findById`, for every request. */
  async findSessionById(id: string): Promise<SessionUser | null> {
    if (!isUserId(id)) return null;
    const [row] = await SESSION_BY_ID_STATEMENT.rows(this.sequelize, [id]);
    return row ? { ...row, id: String(row.id) } : null;
  }

  /** Case-insensitive, as the unique index. */
  async findByEmail(email: string): Promise<User | null> {
    const row = await this.findRowByEmail(normalizeEmail(email));
    return row ? toUser(row) : null;
  }

  /** Confirms the account the token was sent to and clears the token. Unknown token: NotFound `invalid_token`. */
  async confirm(token: string): Promise<User> {
    const row = await this.updateOne(
      { confirmedAt: this.now(), confirmationTokenHash: null },
      { confirmationTokenHash: hashToken(token) },
    );
    if (!row) throw invalidToken(USER_MESSAGES.confirmationInvalid);
    return toUser(row);
  }

  /**
   * A new confirmation token for an unconfirmed account (the previous link stops working: we cannot
   * re-send a token we only keep the hash of). Refused within 100 s of the last email.
   */
  async resendConfirmation(email: string): Promise<UserWithToken> {
    const row = await this.findRowByEmail(normalizeEmail(email));
    if (!row || row.confirmedAt) throw refused(USER_MESSAGES.noUserToValidate);
    const now = this.now();
    const token = generateToken();
    const updated = await this.updateOne(
      { confirmationTokenHash: hashToken(token), confirmationSentAt: now },
      { id: row.id, confirmedAt: null, ...sentBefore('confirmationSentAt', now) },
    );
    if (!updated) throw resendTooSoon(secondsUntilResend(row.confirmationSentAt, now) || 1);
    return { user: toUser(updated), token };
  }

  /**
   * A reset-password token for a confirmed, enabled account; null when there is none (the app decides
   * what to tell the caller). Refused within 100 s of the last one, and for external-provider accounts.
   */
  async issueResetToken(email: string): Promise<UserWithToken | null> {
    const row = await this.findRowByEmail(normalizeEmail(email));
    if (!row || !row.confirmedAt || row.disabled) return null;
    if (row.provider) throw refused(USER_MESSAGES.cannotResetPassword);
    const now = this.now();
    const token = generateToken();
    const updated = await this.updateOne(
      { resetPasswordTokenHash: hashToken(token), resetPasswordSentAt: now },
      { id: row.id, ...sentBefore('resetPasswordSentAt', now) },
    );
    if (!updated) throw resendTooSoon(secondsUntilResend(row.resetPasswordSentAt, now) || 1);
    return { user: toUser(updated), token };
  }

  /** Sets a new password with a reset token, which stops working. Errors: password policy, unknown token. */
  async resetPassword(token: string, newPassword: string): Promise<User> {
    validatePassword(newPassword);
    const tokenHash = hashToken(token);
    // Look first so an unknown token does not cost an Argon2 run.
    if (!(await this.model.findOne({ where: { resetPasswordTokenHash: tokenHash }, attributes: ['id'] }))) {
      throw invalidToken(USER_MESSAGES.resetTokenInvalid);
    }
    const passwordHash = await hashPassword(newPassword, this.hashParams);
    const row = await this.updateOne(
      { passwordHash, resetPasswordTokenHash: null },
      { resetPasswordTokenHash: tokenHash },
    );
    if (!row) throw invalidToken(USER_MESSAGES.resetTokenInvalid);
    return toUser(row);
  }

  /**
   * Records `newEmail` as pending and returns the token to send to it; the email changes when
   * `confirmEmailChange` gets the token. Checks in the reference's order: password, same, format, taken.
   */
  async requestEmailChange(
    user: UserRef,
    newEmail: string,
    authorisation: EmailChangeAuthorisation,
  ): Promise<UserWithToken> {
    const row = await this.requireRow(user.id);
    if ('password' in authorisation) {
      const check = row.passwordHash
        ? await verifyPassword(row.passwordHash, authorisation.password, this.hashParams)
        : await verifyAgainstNothing(authorisation.password, this.hashParams);
      if (!check.ok) throw refused(USER_MESSAGES.passwordProvidedInvalid);
    }
    const email = normalizeEmail(newEmail);
    if (email.toLowerCase() === row.email.toLowerCase()) throw refused(USER_MESSAGES.newEmailSame);
    if (!isValidEmail(email)) throw refused(USER_MESSAGES.newEmailInvalid);
    if (await this.findRowByEmail(email)) throw emailError(USER_MESSAGES.emailTaken);
    const token = generateToken();
    const updated = await this.updateOne(
      { unconfirmedEmail: email, emailChangeTokenHash: hashToken(token), emailChangeSentAt: this.now() },
      { id: row.id },
    );
    if (!updated) throw userNotFound();
    return { user: toUser(updated), token };
  }

  /** Makes the pending email the account's email; the token stops working. */
  async confirmEmailChange(token: string): Promise<User> {
    const tokenHash = hashToken(token);
    const pending = await this.model.findOne({ where: { emailChangeTokenHash: tokenHash } });
    const unconfirmedEmail = pending?.get().unconfirmedEmail;
    if (!pending || !unconfirmedEmail) throw invalidToken(USER_MESSAGES.emailChangeTokenInvalid);
    try {
      const row = await this.updateOne(
        { email: unconfirmedEmail, unconfirmedEmail: null, emailChangeTokenHash: null },
        { emailChangeTokenHash: tokenHash, unconfirmedEmail },
      );
      if (!row) throw invalidToken(USER_MESSAGES.emailChangeTokenInvalid);
      return toUser(row);
    } catch (error) {
      // Someone registered the address between the request and its confirmation.
      throw mapUniqueEmail(error);
    }
  }

  /** Checks in the reference's order: current password, different, policy. */
  async changePassword(user: UserRef, currentPassword: string, newPassword: string): Promise<User> {
    const row = await this.requireRow(user.id);
    const check = row.passwordHash
      ? await verifyPassword(row.passwordHash, currentPassword, this.hashParams)
      : await verifyAgainstNothing(currentPassword, this.hashParams);
    if (!check.ok) throw refused(USER_MESSAGES.currentPasswordInvalid);
    if (currentPassword === newPassword) throw refused(USER_MESSAGES.newPasswordSame);
    validatePassword(newPassword);
    const passwordHash = await hashPassword(newPassword, this.hashParams);
    const updated = await this.updateOne({ passwordHash }, { id: row.id });
    if (!updated) throw userNotFound();
    return toUser(updated);
  }

  /**
   * The confirmed, enabled account with this email and password. Unknown, unconfirmed or disabled:
   * "User not found" (after the same Argon2 work as a real check); wrong password: the reference's
   * message. A hash made with outdated parameters is replaced.
   */
  async authenticate(email: string, password: string): Promise<User> {
    const row = await this.findRowByEmail(normalizeEmail(email));
    if (!row || !row.confirmedAt || row.disabled) {
      await verifyAgainstNothing(password, this.hashParams);
      throw userNotFound();
    }
    if (!row.passwordHash) {
      await verifyAgainstNothing(password, this.hashParams);
      throw passwordHashMissing();
    }
    const check = await verifyPassword(row.passwordHash, password, this.hashParams);
    if (!check.ok) throw refused(USER_MESSAGES.invalidCredentials);
    if (check.rehash) {
      // Only if the hash is still the one we checked: a concurrent password change wins.
      await this.model.update(
        { passwordHash: check.rehash },
        { where: { id: row.id, passwordHash: row.passwordHash } },
      );
    }
    return toUser(row);
  }

  /** Shifts the current sign-in to "last" and records this one (the User fields of the reference). */
  async recordSignIn(user: UserRef, ip: string | null): Promise<User> {
    const [, rows] = await this.model.update(
      {
        lastSignInAt: this.model.sequelize!.col('current_sign_in_at') as unknown as Date,
        lastSignInIp: this.model.sequelize!.col('current_sign_in_ip') as unknown as string,
        currentSignInAt: this.now(),
        currentSignInIp: ip,
      },
      { where: { id: user.id }, returning: true },
    );
    const row = rows[0];
    if (!row) throw userNotFound();
    return toUser(row.get());
  }

  /**
   * Deletes an account (what references it goes by its foreign keys' cascades). For apps undoing a
   * half-made sign-up: they never write this package's table themselves. Returns whether it existed.
   */
  async remove(user: UserRef, options: { transaction?: Transaction } = {}): Promise<boolean> {
    if (!isUserId(user.id)) return false;
    return (await this.model.destroy({ where: { id: user.id }, transaction: options.transaction })) > 0;
  }

  /** Deletes accounts still unconfirmed after the grace period (48 h by default); returns how many. */
  async purgeUnconfirmed(graceHours = UNCONFIRMED_GRACE_PERIOD_HOURS): Promise<number> {
    const cutoff = new Date(this.now().getTime() - graceHours * 3_600_000);
    return this.model.destroy({ where: { confirmedAt: null, createdAt: { [Op.lt]: cutoff } } });
  }

  private async findRowByEmail(email: string, transaction?: Transaction): Promise<UserRow | null> {
    const sequelize = this.model.sequelize!;
    const row = await this.model.findOne({
      where: sequelize.where(sequelize.fn('lower', sequelize.col('email')), email.toLowerCase()),
      transaction,
    });
    return row ? row.get() : null;
  }

  private async requireRow(id: string): Promise<UserRow> {
    if (!isUserId(id)) throw userNotFound();
    const row = await this.model.findByPk(id);
    if (!row) throw userNotFound();
    return row.get();
  }

  /** One conditional UPDATE … RETURNING: the changed row, or null when `where` matched nothing. */
  private async updateOne(values: Partial<UserRow>, where: WhereOptions<UserRow>): Promise<UserRow | null> {
    const [, rows] = await this.model.update(values, { where, returning: true });
    const row: UserInstance | undefined = rows[0];
    return row ? row.get() : null;
  }
}

/** Whether `id` can name a row of `users`, so a bad id is "not found", not a database error. */
export const isUserId = isRowId;

function sentBefore(column: 'confirmationSentAt' | 'resetPasswordSentAt', now: Date): WhereOptions<UserRow> {
  const limit = new Date(now.getTime() - RESEND_INTERVAL_SECONDS * 1000);
  return { [Op.or]: [{ [column]: null }, { [column]: { [Op.lte]: limit } }] } as WhereOptions<UserRow>;
}

function mapUniqueEmail(error: unknown): unknown {
  if (error instanceof UniqueConstraintError) {
    const constraint = (error.parent as { constraint?: string } | undefined)?.constraint;
    if (constraint === undefined || constraint === 'users_email_lower_key') {
      return emailError(USER_MESSAGES.emailTaken);
    }
  }
  return error;
}

/** The columns `toUser` reads. */
type UserFields = Omit<
  UserRow,
  'confirmationTokenHash' | 'resetPasswordTokenHash' | 'emailChangeSentAt' | 'emailChangeTokenHash'
>;

// Named, so PostgreSQL parses and plans it once per connection (Sequelize sends unnamed statements).
const FIND_BY_ID_STATEMENT = preparedStatement<UserFields, [id: string]>({
  name: 'agora_user_by_id',
  text: `SELECT id, email, password_hash AS "passwordHash", role, locale, provider, disabled,
                confirmed_at AS "confirmedAt", confirmation_sent_at AS "confirmationSentAt",
                reset_password_sent_at AS "resetPasswordSentAt", unconfirmed_email AS "unconfirmedEmail",
                last_sign_in_at AS "lastSignInAt", last_sign_in_ip AS "lastSignInIp",
                current_sign_in_at AS "currentSignInAt", current_sign_in_ip AS "currentSignInIp",
                created_at AS "createdAt", updated_at AS "updatedAt"
           FROM users WHERE id = $1`,
});

const SESSION_BY_ID_STATEMENT = preparedStatement<SessionUser & { id: string | number }, [id: string]>({
  name: 'agora_session_user_by_id',
  text: `SELECT id, email, role, locale, provider, disabled, password_hash IS NOT NULL AS "hasPassword",
                confirmed_at AS "confirmedAt", created_at AS "createdAt"
           FROM users WHERE id = $1`,
});

export function toUser(row: UserFields): User {
  return {
    id: String(row.id),
    email: row.email,
    role: row.role,
    locale: row.locale,
    provider: row.provider,
    disabled: row.disabled,
    hasPassword: row.passwordHash !== null,
    confirmedAt: row.confirmedAt,
    confirmationSentAt: row.confirmationSentAt,
    resetPasswordSentAt: row.resetPasswordSentAt,
    unconfirmedEmail: row.unconfirmedEmail,
    lastSignInAt: row.lastSignInAt,
    lastSignInIp: row.lastSignInIp,
    currentSignInAt: row.currentSignInAt,
    currentSignInIp: row.currentSignInIp,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
