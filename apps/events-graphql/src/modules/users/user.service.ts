import {
  EVENTS_POLICIES,
  USER_MESSAGES,
  emailSubject,
  ipSubject,
  isValidEmail,
  normalizeEmail,
  refused,
  roleSatisfies,
  verifyPassword,
  type JwtSessions,
  type RateLimitCheck,
  type RateLimiter,
  type Role,
  type SessionUser,
  type TokenPair,
  type User,
  type UserModel,
  type UserRow,
  type UserStore,
} from '@agora/auth';
import { BadInput, NotFound, type Mailer } from '@agora/core';
import type { ActorStore } from '@agora/federation';
import { registrationRefusal, type RegistrationPolicy } from './registration-policy.js';
import {
  DEFAULT_USER_SETTINGS,
  NOTIFICATION_PENDING,
  type NotificationPending,
  type UserSettingsAttributes,
  type UserSettingsModel,
} from './user-settings.model.js';

/** A stored account as the app reads it (no password or token hashes). */
export type UserRecord = User;

export interface Caller {
  ip: string | undefined;
}

export interface LoginResult extends TokenPair {
  user: UserRecord;
}

export type UserSettings = Omit<UserSettingsAttributes, 'userId'>;

export interface UserSettingsPatch {
  timezone?: string | null;
  notificationOnDay?: boolean | null;
  notificationEachWeek?: boolean | null;
  notificationBeforeEvent?: boolean | null;
  notificationPendingParticipation?: NotificationPending | null;
  notificationPendingMembership?: NotificationPending | null;
  groupNotifications?: NotificationPending | null;
  /** Replaces the stored location (its absent fields become null); null clears it. */
  location?: LocationPatch | null;
}

export interface LocationPatch {
  name?: string | null;
  geohash?: string | null;
  range?: number | null;
}

export interface UserServiceOptions {
  store: UserStore;
  sessions: JwtSessions;
  limiter: RateLimiter;
  mailer: Mailer;
  settingsModel: UserSettingsModel;
  /** Read per registration: administrators may open or close registrations at any time. */
  registrationPolicy: () => RegistrationPolicy;
  publicUrl: string;
  instanceName: () => string;
  /** Keeps the names of a deleted account's profiles from being taken again. */
  actors?: Pick<ActorStore, 'reserveUsernamesOfUser'>;
}

type LimitedOperation = 'login' | 'createUser' | 'resendConfirmationEmail' | 'sendResetPassword';

const TIMEZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** The rules of accounts: registration, confirmation, sign-in, password and email changes, roles. */
export class UserService {
  private readonly users: UserModel;

  constructor(private readonly options: UserServiceOptions) {
    this.users = options.store.model;
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.options.store.findById(id);
  }

  /** Who the caller of a request is (`SessionUser`): what guards and most operations need. */
  findSession(id: string): Promise<SessionUser | null> {
    return this.options.store.findSessionById(id);
  }

  async get(id: string): Promise<UserRecord> {
    const user = await this.options.store.findById(id);
    if (!user) throw new NotFound('User not found', { code: 'user_not_found' });
    return user;
  }

  canModerate(user: Pick<UserRecord, 'role'>): boolean {
    return roleSatisfies(user.role, 'MODERATOR');
  }

  /** Registers an unconfirmed account and mails its confirmation link. */
  async register(
    input: { email: string; password: string; locale: string },
    caller: Caller,
  ): Promise<UserRecord> {
    await this.limit('createUser', caller, input.email);
    const refusal = registrationRefusal(this.options.registrationPolicy(), normalizeEmail(input.email));
    if (refusal) throw refused(refusal);
    const { user, confirmationToken } = await this.options.store.create({
      email: input.email,
      password: input.password,
      locale: input.locale,
    });
    try {
      if (confirmationToken) await this.sendConfirmation(user, confirmationToken);
    } catch (error) {
      // Without its mail the account could never be confirmed: registering again must be possible.
      await this.users.destroy({ where: { id: user.id } });
      throw error;
    }
    return user;
  }

  async validateUser(token: string, caller: Caller): Promise<LoginResult> {
    const user = await this.options.store.confirm(token);
    return this.signIn(user, caller.ip);
  }

  async resendConfirmation(email: string, locale: string, caller: Caller): Promise<string> {
    await this.limit('resendConfirmationEmail', caller, email);
    const { user, token } = await this.options.store.resendConfirmation(email);
    await this.sendConfirmation({ ...user, locale: locale || user.locale }, token);
    return user.email;
  }

  async sendResetPassword(email: string, _locale: string, caller: Caller): Promise<string> {
    await this.limit('sendResetPassword', caller, email);
    const issued = await this.options.store.issueResetToken(email);
    if (!issued) throw refused('No user with this email was found');
    const { user, token } = issued;
    await this.mail(user.email, 'Instructions to reset your password', [
      'You asked to reset the password of your account. Follow this link to choose a new one:',
      '',
      `${this.options.publicUrl}/password-reset/${token}`,
      '',
      "If you didn't ask for this, ignore this email: your password stays as it is.",
    ]);
    return user.email;
  }

  async resetPassword(token: string, password: string, caller: Caller): Promise<LoginResult> {
    const user = await this.options.store.resetPassword(token, password);
    // Whoever knew the old password is signed out everywhere.
    await this.options.sessions.revokeAllFor(user.id);
    return this.signIn(user, caller.ip);
  }

  async login(email: string, password: string, caller: Caller): Promise<LoginResult> {
    await this.limit('login', caller, email);
    const user = await this.options.store.authenticate(email, password);
    return this.signIn(user, caller.ip);
  }

  async refresh(refreshToken: string): Promise<TokenPair> {
    const { accessToken, refreshToken: next } = await this.options.sessions.refresh(refreshToken);
    return { accessToken, refreshToken: next };
  }

  /** Revokes one of the caller's refresh tokens; the reference answers with the token. */
  async logout(user: SessionUser, refreshToken: string): Promise<string> {
    await this.options.sessions.logout(refreshToken, user.id);
    return refreshToken;
  }

  /**
   * Whoever knew the old password is signed out: every other session of the user ends (its refresh
   * token stops working); the caller's (`sessionId`, from its access token) stays.
   */
  async changePassword(
    user: SessionUser,
    current: string,
    next: string,
    sessionId: string | undefined,
  ): Promise<UserRecord> {
    const changed = await this.options.store.changePassword(user, current, next);
    await this.options.sessions.revokeAllFor(user.id, { except: sessionId });
    return changed;
  }

  /** Records the new address as pending and mails it a link; the email changes when it is followed. */
  async changeEmail(
    user: SessionUser,
    email: string,
    password: string,
    _locale: string,
  ): Promise<UserRecord> {
    const { user: updated, token } = await this.options.store.requestEmailChange(user, email, { password });
    await this.mail(updated.unconfirmedEmail ?? email, 'Confirm your new email address', [
      `You asked to use this address for your account on ${this.options.instanceName()}. Confirm it here:`,
      '',
      `${this.options.publicUrl}/validate/email/${token}`,
    ]);
    await this.mail(user.email, 'Your email address is being changed', [
      `Someone asked to change the email of your account to ${updated.unconfirmedEmail ?? email}.`,
      "If it wasn't you, change your password right away.",
    ]);
    return updated;
  }

  validateEmail(token: string): Promise<UserRecord> {
    return this.options.store.confirmEmailChange(token);
  }

  async updateLocale(user: SessionUser, locale: string): Promise<UserRecord> {
    return this.updateRow(user.id, { locale });
  }

  /** An administrator's changes to an account, all or nothing; `notify` mails the user about them. */
  async adminUpdate(
    _admin: SessionUser,
    id: string,
    change: { email?: string; role?: Role; confirmed?: boolean; notify: boolean },
  ): Promise<UserRecord> {
    const user = await this.get(id);
    const values: Partial<UserRow> = {};
    if (change.role !== undefined) {
      if (change.role === user.role) throw refused('The new role must be different');
      values.role = change.role;
    }
    if (change.confirmed === false) throw refused('Deconfirming users is not supported');
    if (change.confirmed === true) {
      if (user.confirmedAt) throw refused(USER_MESSAGES.alreadyConfirmed);
      values.confirmedAt = new Date();
      values.confirmationTokenHash = null;
    }
    if (change.email !== undefined) {
      const email = normalizeEmail(change.email);
      if (email.toLowerCase() === user.email.toLowerCase()) throw refused(USER_MESSAGES.newEmailSame);
      if (!isValidEmail(email)) throw refused(USER_MESSAGES.newEmailInvalid);
      if (await this.options.store.findByEmail(email)) {
        throw BadInput.field('email', USER_MESSAGES.emailTaken);
      }
      values.email = email;
    }
    const updated = await this.updateRow(user.id, values);
    if (change.notify) {
      if (values.role) {
        await this.mail(updated.email, 'Your role was changed', [
          `An administrator of ${this.options.instanceName()} changed your role to ${updated.role}.`,
        ]);
      }
      if (values.email) {
        for (const to of [user.email, updated.email]) {
          await this.mail(to, 'Your email address was changed', [
            `An administrator of ${this.options.instanceName()} changed the email of your account to ${updated.email}.`,
          ]);
        }
      }
    }
    return updated;
  }

  /** Deletes the caller's own account after checking its password; its sessions and settings go with it. */
  async deleteAccount(user: SessionUser, password: string): Promise<{ id: string }> {
    const row = await this.users.findByPk(user.id);
    const hash = row?.get().passwordHash;
    // Accounts of an external provider have no password to check, as in the reference.
    if (hash) {
      const check = await verifyPassword(hash, password, this.options.store.hashParams);
      if (!check.ok) throw refused('The password provided is invalid');
    }
    return this.deleteUser(user.id);
  }

  /**
   * Deletes an account; rows that belong to it (profiles, refresh tokens, settings) cascade in the
   * same statement, and its profiles' names stay reserved.
   */
  async deleteUser(id: string): Promise<{ id: string }> {
    await this.users.sequelize!.transaction(async (transaction) => {
      await this.options.actors?.reserveUsernamesOfUser(id, { transaction });
      const deleted = await this.users.destroy({ where: { id }, transaction });
      if (deleted === 0) throw new NotFound('User not found', { code: 'user_not_found' });
    });
    return { id };
  }

  async settings(userId: string): Promise<UserSettings> {
    const row = await this.options.settingsModel.findByPk(userId);
    return row ? withoutUserId(row.get()) : { ...DEFAULT_USER_SETTINGS };
  }

  /** Changes the given settings only (null leaves one as it is, except `timezone`, which it clears). */
  async setSettings(user: SessionUser, patch: UserSettingsPatch): Promise<UserSettings> {
    const values: Partial<UserSettings> = {};
    if (patch.timezone !== undefined) values.timezone = validTimezone(patch.timezone);
    for (const key of ['notificationOnDay', 'notificationEachWeek', 'notificationBeforeEvent'] as const) {
      const value = patch[key];
      if (value !== undefined && value !== null) values[key] = value;
    }
    for (const key of [
      'notificationPendingParticipation',
      'notificationPendingMembership',
      'groupNotifications',
    ] as const) {
      const value = patch[key];
      if (value !== undefined && value !== null && NOTIFICATION_PENDING.includes(value)) values[key] = value;
    }
    if (patch.location !== undefined) Object.assign(values, locationValues(patch.location));
    const current = await this.settings(user.id);
    const [row] = await this.options.settingsModel.upsert({ ...current, ...values, userId: user.id });
    return withoutUserId(row.get());
  }

  private async signIn(user: UserRecord, ip: string | undefined): Promise<LoginResult> {
    const signedIn = await this.options.store.recordSignIn(user, ip ?? null);
    const pair = await this.options.sessions.issuePair(signedIn);
    return { ...pair, user: signedIn };
  }

  private async updateRow(id: string, values: Partial<UserRow>): Promise<UserRecord> {
    if (Object.keys(values).length > 0) {
      // One statement: every change of the call lands, or none does.
      await this.users.update(values, { where: { id } });
    }
    return this.get(id);
  }

  /**
   * Counts the call per IP and per email with the reference's limits; over either: RateLimited. The
   * limiter lets safelisted callers through (`RATE_LIMIT_SAFELIST`).
   */
  private async limit(operation: LimitedOperation, caller: Caller, email: string): Promise<void> {
    const policies = EVENTS_POLICIES[operation];
    const checks: RateLimitCheck[] = [];
    // A blank address names nobody (and has no subject): only the caller's address counts it.
    if (email.trim() !== '') checks.push({ policy: policies.email, subject: emailSubject(email) });
    if (caller.ip) checks.push({ policy: policies.ip, subject: ipSubject(caller.ip) });
    await this.options.limiter.enforce(checks, caller);
  }

  private async sendConfirmation(user: UserRecord, token: string): Promise<void> {
    await this.mail(user.email, `Instructions to confirm your account on ${this.options.instanceName()}`, [
      `Welcome to ${this.options.instanceName()}! Confirm your account by following this link:`,
      '',
      `${this.options.publicUrl}/validate/${token}`,
      '',
      "If you didn't register, ignore this email: the account will be deleted in 48 hours.",
    ]);
  }

  private async mail(to: string, subject: string, lines: string[]): Promise<void> {
    await this.options.mailer.send({ to, subject, text: lines.join('\n') });
  }
}

function withoutUserId(row: UserSettingsAttributes): UserSettings {
  const { userId: _userId, ...settings } = row;
  return {
    timezone: settings.timezone,
    notificationOnDay: settings.notificationOnDay,
    notificationEachWeek: settings.notificationEachWeek,
    notificationBeforeEvent: settings.notificationBeforeEvent,
    notificationPendingParticipation: settings.notificationPendingParticipation,
    notificationPendingMembership: settings.notificationPendingMembership,
    groupNotifications: settings.groupNotifications,
    locationName: settings.locationName ?? null,
    locationGeohash: settings.locationGeohash ?? null,
    locationRange: settings.locationRange ?? null,
  };
}

/** An IANA zone id; an empty string (or null) clears the setting, as in the reference. */
function validTimezone(value: string | null): string | null {
  if (value === null || value === '') return null;
  if (!TIMEZONES.has(value)) {
    const message = `Timezone ID ${value} is invalid`;
    throw BadInput.field('timezone', message);
  }
  return value;
}

const GEOHASH = /^[0-9b-hjkmnp-z]{1,12}$/;
const LOCATION_NAME_MAX = 255;

/** The stored columns of a location; a geohash or range that names no place is refused. */
function locationValues(
  location: LocationPatch | null,
): Pick<UserSettings, 'locationName' | 'locationGeohash' | 'locationRange'> {
  const name = location?.name?.trim() || null;
  const geohash = location?.geohash?.trim().toLowerCase() || null;
  const range = location?.range ?? null;
  if (geohash !== null && !GEOHASH.test(geohash)) {
    throw new BadInput('Invalid location', { fields: { location: ['geohash is not valid'] } });
  }
  if (range !== null && range < 0) {
    throw new BadInput('Invalid location', {
      fields: { location: ['range must be greater than or equal to 0'] },
    });
  }
  return {
    locationName: name?.slice(0, LOCATION_NAME_MAX) ?? null,
    locationGeohash: geohash,
    locationRange: range,
  };
}
