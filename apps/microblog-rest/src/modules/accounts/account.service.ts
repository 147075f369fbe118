import {
  hashPassword,
  isUserId,
  isValidEmail,
  normalizeEmail,
  isEmailTaken,
  type Role,
  type Scope,
  type User,
  type UserStore,
} from '@agora/auth';
import { Conflict, Forbidden, Internal, isAppError, NotFound, type Mailer } from '@agora/core';
import { preparedStatement } from '@agora/db';
import {
  ACTOR_SELECT_LIST,
  parseAcct,
  toActor,
  type Actor,
  type ActorRow,
  type ActorStore,
  type ActorType,
} from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { MicroblogLimits } from '../../config/config.js';
import type { SerializableAccount } from '../../entities/account.js';
import type { InstanceService } from '../instance/instance.service.js';
import type { UploadedFile } from '../media/multipart-upload.js';
import {
  defaultAccountSettings,
  defineAccountSettingsModel,
  POSTING_PRIVACIES,
  type AccountSettingsModel,
  type AccountSettingsRow,
  type FieldSource,
  type PostingPrivacy,
} from './account-settings.model.js';
import {
  PASSWORD_LENGTH,
  RESERVED_USERNAMES,
  tooLong,
  tooShort,
  USERNAME_MAX_LENGTH,
  USERNAME_PATTERN,
  Validation,
  VALIDATION,
} from './account-validation.js';
import { characterCount, fieldValueToHtml, noteToHtml } from './profile-text.js';

/** The reference's refusals of a signed-in caller whose login cannot be used yet (403). */
export const LOGIN_REFUSALS = {
  unconfirmed: 'Your login is missing a confirmed e-mail address',
  disabled: 'Your login is currently disabled',
} as const;
/** Mastodon's generic 403 (registrations closed, among others). */
export const NOT_ALLOWED = 'This action is not allowed';
export const RECORD_NOT_FOUND = 'Record not found';

/** A token the registration hands out, issued inside the registration's transaction. */
export interface IssuedUserToken {
  accessToken: string;
  scopes: Scope[];
  createdAt: Date;
}

export interface UserTokenIssuer {
  issue(
    applicationId: string,
    userId: string,
    scopes: Scope[],
    transaction: Transaction,
  ): Promise<IssuedUserToken>;
}

export interface RegistrationInput {
  username: string | undefined;
  email: string | undefined;
  password: string | undefined;
  agreement: boolean | undefined;
  locale: string | undefined;
  reason: string | undefined;
}

/** What PATCH update_credentials may change; omitted keys stay as they are. */
export interface CredentialsPatch {
  displayName?: string;
  note?: string;
  locked?: boolean;
  bot?: boolean;
  discoverable?: boolean;
  indexable?: boolean;
  hideCollections?: boolean;
  /** The seed's `filtered_languages`: ISO 639 codes; empty shows every language. */
  filteredLanguages?: string[];
  fields?: FieldSource[];
  privacy?: string;
  sensitive?: boolean;
  language?: string | null;
  /** Uploaded images (multipart `avatar` / `header`). */
  avatar?: UploadedFile;
  header?: UploadedFile;
}

/** Where avatars and headers are stored (the media module's ProfileImages). */
export interface ProfileImageStore {
  /** Stores an upload; returns its public URL. Errors: BadInput "Validation failed: …". */
  store(kind: 'avatar' | 'header', upload: UploadedFile): Promise<string>;
  /** Removes a stored image by its URL; URLs it did not hand out are ignored. */
  discard(url: string | null): Promise<void>;
}

/** An account as the public sees it: its actor, and for a local one its owner's role and choices. */
/** What the Account entity shows of an actor (no keys, no inboxes). */
export type AccountActor = Pick<
  Actor,
  | 'id'
  | 'type'
  | 'username'
  | 'domain'
  | 'local'
  | 'uri'
  | 'url'
  | 'displayName'
  | 'summary'
  | 'fields'
  | 'manuallyApprovesFollowers'
  | 'discoverable'
  | 'indexable'
  | 'avatarUrl'
  | 'headerUrl'
  | 'followersCount'
  | 'followingCount'
  | 'statusesCount'
  | 'lastStatusAt'
  | 'suspended'
  | 'silencedAt'
  | 'createdAt'
>;

export interface AccountView {
  actor: AccountActor;
  role: Role | null;
  /** Whether the owner hides whom they follow and who follows them; null for remote accounts. */
  hideCollections: boolean | null;
}

/** The signed-in owner's view (verify_credentials, update_credentials). */
export interface CredentialView extends AccountView {
  role: Role;
  settings: AccountSettingsRow;
  followRequestsCount: number;
}

export interface AccountServiceDeps {
  sequelize: Sequelize;
  users: UserStore;
  actors: ActorStore;
  tokens: UserTokenIssuer;
  mailer: Mailer;
  instance: InstanceService;
  limits: MicroblogLimits['accounts'];
  publicUrl: string;
  instanceTitle: string;
  /** Without it, uploaded avatars and headers are ignored. */
  images?: ProfileImageStore;
  /** The local copies of remote accounts' avatars and headers (without it they show as missing). */
  remoteImages?: RemoteAccountImages;
}

/** Adds the cached copies of a remote account's images to its view. */
export interface RemoteAccountImages {
  withImages<V extends AccountView>(view: V): Promise<V & SerializableAccount>;
  /** The same for many views in one lookup (a page of statuses), in their order. */
  withImagesAll<V extends AccountView>(views: readonly V[]): Promise<Array<V & SerializableAccount>>;
}

/** Local accounts: sign-up through the API, e-mail confirmation, the owner's profile, lookups. */
export class AccountService {
  private readonly settingsModel: AccountSettingsModel;
  /** The domain local accounts are addressed at (`name@domain`). */
  readonly localDomain: string;

  constructor(private readonly deps: AccountServiceDeps) {
    this.settingsModel = defineAccountSettingsModel(deps.sequelize);
    this.localDomain = new URL(deps.publicUrl).host.toLowerCase();
  }

  /**
   * POST /api/v1/accounts: an unconfirmed user, its account and a token of `applicationId` for it, in
   * one transaction; then the confirmation mail. Errors: Forbidden (registrations closed), BadInput
   * "Validation failed: …" with per-field details.
   */
  async register(
    input: RegistrationInput,
    application: { id: string; scopes: Scope[] },
  ): Promise<{ token: IssuedUserToken; user: User; actor: Actor }> {
    const settings = await this.deps.instance.settings();
    if (!settings.registrationsOpen) throw new Forbidden(NOT_ALLOWED);

    const { username, email, password, locale } = await this.validateRegistration(input);
    // Hashing is the slow part: done before the transaction so it holds no locks meanwhile.
    const passwordHash = await hashPassword(password, this.deps.users.hashParams);

    let created: { token: IssuedUserToken; user: User; actor: Actor; confirmationToken: string };
    try {
      created = await this.deps.sequelize.transaction(async (transaction) => {
        // Through @agora/auth's store: apps never write its `users` table themselves.
        const { user, confirmationToken } = await this.deps.users.create(
          { email, passwordHash, role: 'USER', locale },
          { transaction },
        );
        const actor = await this.deps.actors.createLocal(
          { type: 'Person', username, userId: user.id },
          { transaction },
        );
        await this.settingsModel.create({ actorId: actor.id, updatedAt: new Date() }, { transaction });
        const token = await this.deps.tokens.issue(application.id, user.id, application.scopes, transaction);
        return { token, actor, user, confirmationToken: confirmationToken! };
      });
    } catch (error) {
      throw this.registrationConflict(error) ?? error;
    }

    try {
      await this.sendConfirmation(created.user.email, username, created.confirmationToken);
    } catch (error) {
      // Without its mail the account could never be confirmed: registering again must be possible.
      await this.deps.users.remove(created.user);
      throw new Internal('The confirmation e-mail could not be sent', { cause: error });
    }
    const { token, user, actor } = created;
    return { token, user, actor };
  }

  /**
   * The account of an existing user without one (the admin tool's `users:create --username`).
   * Errors: BadInput "Validation failed: …" for a malformed, reserved or taken name.
   */
  async createForUser(userId: string, requested: string): Promise<Actor> {
    const v = new Validation();
    const username = requested.trim();
    if (!USERNAME_PATTERN.test(username)) v.add('username', 'Username', VALIDATION.usernameFormat);
    else if (characterCount(username) > USERNAME_MAX_LENGTH) {
      v.add('username', 'Username', tooLong(USERNAME_MAX_LENGTH));
    } else if (RESERVED_USERNAMES.includes(username.toLowerCase())) {
      v.add('username', 'Username', VALIDATION.reserved);
    } else if (await this.deps.actors.findByUsername(username, null)) {
      v.add('username', 'Username', VALIDATION.taken);
    }
    v.throwIfFailed();
    try {
      return await this.deps.sequelize.transaction(async (transaction) => {
        const actor = await this.deps.actors.createLocal(
          { type: 'Person', username, userId },
          { transaction },
        );
        await this.settingsModel.create({ actorId: actor.id, updatedAt: new Date() }, { transaction });
        return actor;
      });
    } catch (error) {
      throw this.registrationConflict(error) ?? error;
    }
  }

  /** The link in the confirmation mail. Errors: NotFound when the token is unknown or used. */
  async confirmEmail(token: string): Promise<User> {
    return this.deps.users.confirm(token);
  }

  /**
   * The user behind a user token, refused (403) while it is unconfirmed or disabled, as the
   * reference's `require_user!` does.
   */
  async functionalUser(userId: string): Promise<User> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw new Forbidden(LOGIN_REFUSALS.disabled);
    if (user.disabled) throw new Forbidden(LOGIN_REFUSALS.disabled);
    if (user.confirmedAt === null) throw new Forbidden(LOGIN_REFUSALS.unconfirmed);
    return user;
  }

  /** The account of a signed-in user whose login is usable. Errors: Forbidden, NotFound. */
  async activeAccount(userId: string): Promise<Actor> {
    // The user's refusals and the account's row in one prepared statement: what every signed-in
    // write (posting, favouriting, following) asks first (ADR 0055).
    const [row] = isUserId(userId)
      ? await ACTIVE_ACCOUNT.rows(this.deps.sequelize, [userId, ACCOUNT_TYPES])
      : [];
    return toActor(usableLogin(row));
  }

  /**
   * The id of `activeAccount`, with its refusals, in one prepared statement: what every signed-in
   * read that only names its viewer needs (lists of statuses, search, notifications, lists).
   */
  async activeAccountId(userId: string): Promise<string> {
    const [row] = isUserId(userId) ? await ACTIVE_ACCOUNT_ID.rows(this.deps.sequelize, [userId]) : [];
    return usableLogin(row).id;
  }

  /** GET verify_credentials. Errors: Forbidden (login unusable), NotFound (user without account). */
  async credentials(userId: string): Promise<CredentialView> {
    // Read on every client start: user, account, settings and pending requests in ONE prepared query.
    const row = isUserId(userId) ? await this.credentialRow(userId) : null;
    if (!row || row.disabled) throw new Forbidden(LOGIN_REFUSALS.disabled);
    if (!row.confirmed) throw new Forbidden(LOGIN_REFUSALS.unconfirmed);
    if (row.id === null) throw new NotFound(RECORD_NOT_FOUND);
    const { id, type, username, domain, uri, url, displayName, summary, fields } = row;
    const actor: AccountActor = {
      id: String(id),
      type: type!,
      username: username!,
      domain,
      local: domain === null,
      uri: uri!,
      url,
      displayName: displayName!,
      summary: summary!,
      fields: fields!,
      manuallyApprovesFollowers: row.manuallyApprovesFollowers!,
      discoverable: row.discoverable!,
      indexable: row.indexable!,
      avatarUrl: row.avatarUrl,
      headerUrl: row.headerUrl,
      followersCount: row.followersCount!,
      followingCount: row.followingCount!,
      statusesCount: row.statusesCount!,
      lastStatusAt: row.lastStatusAt,
      suspended: row.suspended!,
      silencedAt: row.silencedAt,
      createdAt: row.createdAt!,
    };
    const settings: AccountSettingsRow = row.hasSettings
      ? {
          actorId: actor.id,
          privacy: row.privacy!,
          sensitive: row.sensitive!,
          language: row.language,
          noteSource: row.noteSource!,
          fieldsSource: row.fieldsSource!,
          hideCollections: row.hideCollections!,
          filteredLanguages: row.filteredLanguages ?? [],
          updatedAt: row.settingsUpdatedAt!,
        }
      : defaultAccountSettings(actor.id);
    return {
      actor,
      role: row.role,
      settings,
      hideCollections: settings.hideCollections,
      followRequestsCount: row.followRequestsCount,
    };
  }

  private async credentialRow(userId: string): Promise<CredentialRow | null> {
    const [result] = await CREDENTIALS_STATEMENT.rows(this.deps.sequelize, [userId]);
    const row = result?.row;
    if (!row) return null;
    // JSON carries the times as ISO strings.
    return {
      ...row,
      createdAt: asDate(row.createdAt),
      lastStatusAt: asDate(row.lastStatusAt),
      silencedAt: asDate(row.silencedAt),
      settingsUpdatedAt: asDate(row.settingsUpdatedAt),
    };
  }

  /** PATCH update_credentials. Errors: as `credentials`, BadInput "Validation failed: …". */
  async updateCredentials(userId: string, patch: CredentialsPatch): Promise<CredentialView> {
    const user = await this.functionalUser(userId);
    const actor = await this.ownActor(user.id);
    const changes = this.validatePatch(patch);
    // Images are stored before the transaction (slow work, no locks held) and dropped if it fails.
    const images = await this.storeImages(patch);
    try {
      await this.deps.sequelize.transaction(async (transaction) => {
        await this.deps.actors.update(actor.id, { ...changes.actor, ...images }, { transaction });
        if (changes.type && changes.type !== actor.type) {
          await this.deps.actors.setType(actor.id, changes.type, { transaction });
        }
        if (Object.keys(changes.settings).length > 0) {
          await this.settingsModel.upsert(
            { ...(await this.settingsOf(actor.id, transaction)), ...changes.settings, updatedAt: new Date() },
            { transaction },
          );
        }
      });
    } catch (error) {
      await Promise.all(Object.values(images).map((url) => this.deps.images?.discard(url)));
      throw error;
    }
    // The replaced images are no longer referenced.
    if (images.avatarUrl) await this.deps.images?.discard(actor.avatarUrl);
    if (images.headerUrl) await this.deps.images?.discard(actor.headerUrl);
    // Federating the profile Update comes with the federation module's outbox.
    return this.credentialView(await this.ownActor(user.id), user.role);
  }

  /** Stores the uploaded avatar and header; a failure drops what was already stored. */
  private async storeImages(patch: CredentialsPatch): Promise<{ avatarUrl?: string; headerUrl?: string }> {
    const { images } = this.deps;
    const stored: { avatarUrl?: string; headerUrl?: string } = {};
    if (!images) return stored;
    try {
      if (patch.avatar) stored.avatarUrl = await images.store('avatar', patch.avatar);
      if (patch.header) stored.headerUrl = await images.store('header', patch.header);
    } catch (error) {
      if (stored.avatarUrl) await images.discard(stored.avatarUrl);
      throw error;
    }
    return stored;
  }

  /** GET /api/v1/accounts/:id. Errors: NotFound "Record not found". */
  async findById(id: string): Promise<AccountView> {
    const actor = await this.deps.actors.findById(id);
    if (!actor) throw new NotFound(RECORD_NOT_FOUND);
    return this.view(actor);
  }

  /** The local account of a user (the early API's HTTP-basic caller). Errors: NotFound. */
  async findByUser(userId: string): Promise<AccountView> {
    return this.view(await this.ownActor(userId));
  }

  /**
   * GET /api/v1/accounts/lookup: `name`, `@name`, `name@<this domain>` or a known remote
   * `name@domain`; no WebFinger. Errors: NotFound "Record not found".
   */
  async lookup(acct: string | undefined): Promise<AccountView> {
    const address = parseAcct(acct ?? '', this.localDomain);
    if (!address) throw new NotFound(RECORD_NOT_FOUND);
    const actor = await this.deps.actors.findByUsername(address.username, address.domain);
    if (!actor) throw new NotFound(RECORD_NOT_FOUND);
    return this.view(actor);
  }

  /**
   * The views of many accounts in the order given (lists: followers, blocks, search results): one
   * query for the local owners' roles and choices, whatever the length.
   */
  async views(actors: readonly Actor[]): Promise<AccountView[]> {
    const localIds = actors.filter((actor) => actor.local).map((actor) => actor.id);
    const owners = new Map<string, { role: Role | null; hideCollections: boolean }>();
    if (localIds.length > 0) {
      const rows = await this.deps.sequelize.query<{
        id: string;
        role: Role | null;
        hideCollections: boolean;
      }>(
        `SELECT a.id::text AS id, u.role, coalesce(s.hide_collections, false) AS "hideCollections"
           FROM actors a LEFT JOIN users u ON u.id = a.user_id LEFT JOIN account_settings s ON s.actor_id = a.id
          WHERE a.id = ANY($1::bigint[])`,
        { bind: [localIds], type: QueryTypes.SELECT },
      );
      for (const row of rows) owners.set(row.id, { role: row.role, hideCollections: row.hideCollections });
    }
    return Promise.all(
      actors.map(async (actor): Promise<AccountView> => {
        if (!actor.local) {
          const view: AccountView = { actor, role: null, hideCollections: null };
          return this.deps.remoteImages ? this.deps.remoteImages.withImages(view) : view;
        }
        const owner = owners.get(actor.id);
        return { actor, role: owner?.role ?? null, hideCollections: owner?.hideCollections ?? false };
      }),
    );
  }

  /** The view of one account (as `findById`, for an actor already loaded). */
  viewOf(actor: Actor): Promise<AccountView> {
    return this.view(actor);
  }

  private async view(actor: Actor): Promise<AccountView> {
    if (!actor.local) {
      const view: AccountView = { actor, role: null, hideCollections: null };
      return this.deps.remoteImages ? this.deps.remoteImages.withImages(view) : view;
    }
    const [user, settings] = await Promise.all([
      actor.userId === null ? null : this.deps.users.findById(actor.userId),
      this.settingsOf(actor.id),
    ]);
    return { actor, role: user?.role ?? null, hideCollections: settings.hideCollections };
  }

  private async ownActor(userId: string): Promise<Actor> {
    const actor = await this.deps.actors.findFirstByUser(userId, ACCOUNT_TYPES);
    // Users made before accounts existed (or by tools that create no account) have none.
    if (!actor) throw new NotFound(RECORD_NOT_FOUND);
    return actor;
  }

  private async credentialView(actor: Actor, role: Role): Promise<CredentialView> {
    const [settings, rows] = await Promise.all([
      this.settingsOf(actor.id),
      this.deps.sequelize.query<{ count: number }>(
        'SELECT follow_requests_count AS count FROM actors WHERE id = $1',
        { bind: [actor.id], type: QueryTypes.SELECT },
      ),
    ]);
    return {
      actor,
      role,
      settings,
      hideCollections: settings.hideCollections,
      followRequestsCount: rows[0]?.count ?? 0,
    };
  }

  private async settingsOf(actorId: string, transaction?: Transaction): Promise<AccountSettingsRow> {
    const row = await this.settingsModel.findByPk(actorId, { transaction });
    return row ? { ...row.get(), actorId: String(row.get('actorId')) } : defaultAccountSettings(actorId);
  }

  private async validateRegistration(
    input: RegistrationInput,
  ): Promise<{ username: string; email: string; password: string; locale: string }> {
    const v = new Validation();
    const username = (input.username ?? '').trim();
    if (username === '') v.add('username', 'Username', VALIDATION.blank);
    else if (!USERNAME_PATTERN.test(username)) v.add('username', 'Username', VALIDATION.usernameFormat);
    else if (characterCount(username) > USERNAME_MAX_LENGTH) {
      v.add('username', 'Username', tooLong(USERNAME_MAX_LENGTH));
    } else if (RESERVED_USERNAMES.includes(username.toLowerCase())) {
      v.add('username', 'Username', VALIDATION.reserved);
    }

    const email = normalizeEmail(input.email ?? '');
    if (email === '') v.add('email', 'Email', VALIDATION.blank);
    else if (!isValidEmail(email)) v.add('email', 'Email', VALIDATION.invalid);

    const password = input.password ?? '';
    if (password === '') v.add('password', 'Password', VALIDATION.blank);
    else if (characterCount(password) < PASSWORD_LENGTH.min) {
      v.add('password', 'Password', tooShort(PASSWORD_LENGTH.min));
    } else if (characterCount(password) > PASSWORD_LENGTH.max) {
      v.add('password', 'Password', tooLong(PASSWORD_LENGTH.max));
    }

    if (input.agreement !== true) v.add('agreement', 'Agreement', VALIDATION.accepted);

    const locale = canonicalLocale(input.locale);
    if (locale === null) v.add('locale', 'Locale', VALIDATION.inclusion);

    // Taken names and addresses are reported with the rest (the unique indexes still decide races).
    const [actorTaken, userTaken] = await Promise.all([
      v.has('username') ? null : this.deps.actors.findByUsername(username, null),
      v.has('email') ? null : this.deps.users.findByEmail(email),
    ]);
    if (actorTaken) v.add('username', 'Username', VALIDATION.taken);
    if (userTaken) v.add('email', 'Email', VALIDATION.taken);
    v.throwIfFailed();
    return { username, email, password, locale: locale ?? 'en' };
  }

  private validatePatch(patch: CredentialsPatch): {
    actor: Parameters<ActorStore['update']>[1];
    type: ActorType | undefined;
    settings: Partial<AccountSettingsRow>;
  } {
    const { limits } = this.deps;
    const v = new Validation();
    const actor: Parameters<ActorStore['update']>[1] = {};
    const settings: Partial<AccountSettingsRow> = {};

    if (patch.displayName !== undefined) {
      const name = patch.displayName.trim();
      if (characterCount(name) > limits.maxDisplayNameLength) {
        v.add('display_name', 'Display name', tooLong(limits.maxDisplayNameLength));
      }
      actor.displayName = name;
    }
    if (patch.note !== undefined) {
      // Form posts send CRLF line ends; the note is kept as the owner sees it in a text area.
      const note = patch.note.replace(/\r\n?/g, '\n');
      if (characterCount(note) > limits.maxNoteLength) v.add('note', 'Note', tooLong(limits.maxNoteLength));
      actor.summary = noteToHtml(note);
      settings.noteSource = note;
    }
    if (patch.fields !== undefined) {
      // Pairs left empty on both sides are dropped, as the reference's profile form does.
      const fields = patch.fields
        .map((field) => ({ name: field.name.trim(), value: field.value.trim() }))
        .filter((field) => field.name !== '' || field.value !== '');
      if (fields.length > limits.maxProfileFields)
        v.add('fields', 'Fields', tooLong(limits.maxProfileFields));
      if (fields.some((field) => characterCount(field.name) > limits.profileFieldNameLimit)) {
        v.add('fields', 'Fields name', tooLong(limits.profileFieldNameLimit));
      }
      if (fields.some((field) => characterCount(field.value) > limits.profileFieldValueLimit)) {
        v.add('fields', 'Fields value', tooLong(limits.profileFieldValueLimit));
      }
      actor.fields = fields.map((field) => ({
        name: field.name,
        value: fieldValueToHtml(field.value),
        verifiedAt: null,
      }));
      settings.fieldsSource = fields;
    }
    if (patch.locked !== undefined) actor.manuallyApprovesFollowers = patch.locked;
    if (patch.discoverable !== undefined) actor.discoverable = patch.discoverable;
    if (patch.indexable !== undefined) actor.indexable = patch.indexable;
    if (patch.hideCollections !== undefined) settings.hideCollections = patch.hideCollections;
    if (patch.filteredLanguages !== undefined) {
      const languages = [
        ...new Set(patch.filteredLanguages.map((language) => language.trim().toLowerCase())),
      ];
      if (languages.some((language) => !/^[a-z]{2,3}$/.test(language))) {
        v.add('filtered_languages', 'Filtered languages', VALIDATION.inclusion);
      }
      settings.filteredLanguages = languages;
    }
    if (patch.privacy !== undefined) {
      if ((POSTING_PRIVACIES as readonly string[]).includes(patch.privacy)) {
        settings.privacy = patch.privacy as PostingPrivacy;
      } else {
        v.add('source[privacy]', 'Source privacy', VALIDATION.inclusion);
      }
    }
    if (patch.sensitive !== undefined) settings.sensitive = patch.sensitive;
    if (patch.language !== undefined) {
      const language = patch.language === null || patch.language === '' ? null : patch.language.toLowerCase();
      if (language !== null && !/^[a-z]{2,3}$/.test(language)) {
        v.add('source[language]', 'Source language', VALIDATION.inclusion);
      }
      settings.language = language;
    }
    v.throwIfFailed();
    const type: ActorType | undefined =
      patch.bot === undefined ? undefined : patch.bot ? 'Service' : 'Person';
    return { actor, type, settings };
  }

  /** A race lost to a concurrent sign-up: the unique indexes speak, as the early checks would have. */
  private registrationConflict(error: unknown): Error | undefined {
    const v = new Validation();
    if (error instanceof Conflict && error.code === 'username_taken') {
      v.add('username', 'Username', VALIDATION.taken);
    } else if (isEmailTaken(error)) {
      v.add('email', 'Email', VALIDATION.taken);
    } else if (isAppError(error)) {
      return error;
    }
    return v.failed ? v.error() : undefined;
  }

  private async sendConfirmation(email: string, username: string, token: string): Promise<void> {
    const link = `${this.deps.publicUrl}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`;
    await this.deps.mailer.send({
      to: email,
      subject: `${this.deps.instanceTitle}: Confirmation instructions for ${this.localDomain}`,
      text: [
        `Welcome, @${username}!`,
        '',
        `To finish creating your account on ${this.localDomain}, confirm your e-mail address:`,
        link,
        '',
        "If you didn't sign up, you can ignore this e-mail.",
      ].join('\n'),
    });
  }
}

/** Mastodon accounts are Persons, or Services for bots. */
const ACCOUNT_TYPES: ActorType[] = ['Person', 'Service'];

/** One row of CREDENTIALS_STATEMENT: the actor's columns are null when the user has no account. */
type CredentialRow = { [K in Exclude<keyof AccountActor, 'local'>]: AccountActor[K] | null } & {
  role: Role;
  disabled: boolean;
  confirmed: boolean;
  hasSettings: boolean;
  privacy: AccountSettingsRow['privacy'] | null;
  sensitive: boolean | null;
  language: string | null;
  noteSource: string | null;
  fieldsSource: AccountSettingsRow['fieldsSource'] | null;
  hideCollections: boolean | null;
  filteredLanguages: string[] | null;
  settingsUpdatedAt: Date | null;
  followRequestsCount: number;
};

/** The actor columns of `AccountActor`: a client start does not ship keys and inbox URLs it never reads. */
const ACCOUNT_ACTOR_LIST = `a.id::text AS id, a.type, a.username, a.domain, a.uri, a.url, a.display_name AS "displayName",
  a.summary, a.fields, a.manually_approves_followers AS "manuallyApprovesFollowers", a.discoverable,
  a.indexable, a.avatar_url AS "avatarUrl", a.header_url AS "headerUrl", a.followers_count AS "followersCount",
  a.following_count AS "followingCount", a.statuses_count AS "statusesCount", a.last_status_at AS "lastStatusAt",
  a.suspended_at IS NOT NULL AS suspended, a.silenced_at AS "silencedAt", a.created_at AS "createdAt"`;

/** CredentialRow as `row_to_json` sends it: the times as strings. */
type CredentialJson = Omit<
  CredentialRow,
  'createdAt' | 'lastStatusAt' | 'silencedAt' | 'settingsUpdatedAt'
> & {
  createdAt: string | null;
  lastStatusAt: string | null;
  silencedAt: string | null;
  settingsUpdatedAt: string | null;
};

function asDate(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}

// Named, so PostgreSQL parses and plans it once per connection. One JSON column rather than ~30:
// the driver builds one parser per column of every result, which cost more than the JSON.parse.
const CREDENTIALS_STATEMENT = preparedStatement<{ row: CredentialJson }, [userId: string]>({
  name: 'microblog_credentials_by_user',
  text: `SELECT row_to_json(c) AS row FROM (SELECT u.role, u.disabled, u.confirmed_at IS NOT NULL AS confirmed, ${ACCOUNT_ACTOR_LIST},
                s.actor_id IS NOT NULL AS "hasSettings", s.privacy, s.sensitive, s.language,
                s.note_source AS "noteSource", s.fields_source AS "fieldsSource",
                s.hide_collections AS "hideCollections", s.filtered_languages AS "filteredLanguages",
                s.updated_at AS "settingsUpdatedAt",
coalesce(a.follow_requests_count, 0) AS "followRequestsCount"
           FROM users u
           -- At most one account per user (actors_one_per_user_key): a plain join, no LATERAL sort.
           LEFT JOIN actors a ON a.user_id = u.id AND a.domain IS NULL AND a.type IN ('Person', 'Service')
           LEFT JOIN account_settings s ON s.actor_id = a.id
          WHERE u.id = $1) c`,
});

/** A signed-in user's login flags beside its account's columns (`id` null: the user has no account). */
type LoginRow<Account extends { id: unknown }> = Account & { disabled: boolean; confirmed: boolean };

/**
 * The refusals of `activeAccount` and `activeAccountId`: 403 for a missing, disabled or unconfirmed
 * login, 404 for a user without an account (made before accounts existed, or by tools that create none).
 */
function usableLogin<Account extends { id: unknown }>(
  row: LoginRow<Account> | undefined,
): LoginRow<Account> & { id: NonNullable<Account['id']> } {
  if (!row || row.disabled) throw new Forbidden(LOGIN_REFUSALS.disabled);
  if (!row.confirmed) throw new Forbidden(LOGIN_REFUSALS.unconfirmed);
  if (row.id === null || row.id === undefined) throw new NotFound(RECORD_NOT_FOUND);
  return row as LoginRow<Account> & { id: NonNullable<Account['id']> };
}

const ACTIVE_ACCOUNT_ID = preparedStatement<LoginRow<{ id: string | null }>, [userId: string]>({
  name: 'microblog_active_account_id',
  text: `SELECT u.disabled, u.confirmed_at IS NOT NULL AS confirmed, a.id::text AS id
           FROM users u
           LEFT JOIN actors a ON a.user_id = u.id AND a.domain IS NULL AND a.type IN ('Person', 'Service')
          WHERE u.id = $1`,
});

const ACTIVE_ACCOUNT = preparedStatement<
  LoginRow<Omit<ActorRow, 'id'> & { id: ActorRow['id'] | null }>,
  [userId: string, types: readonly ActorType[]]
>({
  name: 'microblog_active_account',
  text: `SELECT u.disabled, u.confirmed_at IS NOT NULL AS confirmed, ${ACTOR_SELECT_LIST}
           FROM users u
           LEFT JOIN LATERAL (
             SELECT * FROM actors x
              WHERE x.user_id = u.id AND x.domain IS NULL AND x.type = ANY($2::text[])
              ORDER BY x.id LIMIT 1) a ON true
          WHERE u.id = $1`,
});

/** A BCP 47 tag in canonical case ("pt-BR"), 'en' when absent, null when it is not one. */
function canonicalLocale(locale: string | undefined): string | null {
  if (locale === undefined || locale.trim() === '') return 'en';
  try {
    const [canonical] = Intl.getCanonicalLocales(locale.trim().replace('_', '-'));
    return canonical !== undefined && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(canonical) ? canonical : null;
  } catch {
    return null;
  }
}
