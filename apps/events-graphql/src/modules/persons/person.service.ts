import { BadInput, Conflict, Forbidden, NotFound } from '@agora/core';
import type { SessionUser, UserStore } from '@agora/auth';
import { parseAcct, type Actor, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { sanitizeSummary } from './person-summary.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const PERSON_MESSAGES = {
  usernameFormat: 'Username must only contain alphanumeric lowercased characters and underscores.',
  usernameTaken: 'This username is already taken.',
  usernameTooLong: 'should be at most 100 character(s)',
  summaryTooLong: 'should be at most 5000 character(s)',
  notOwned: 'Profile is not owned by authenticated user',
  profileNotFound: 'Profile not found',
  lastIdentity: 'Cannot remove the last identity of a user',
  alreadyRegistered: 'You already have a profile for this user',
  noUserWithEmail: 'No user with this email was found',
  notYours: 'This profile does not belong to you',
  lastGroupAdministrator: 'Cannot remove the last administrator of a group',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;
const USERNAME = /^[a-z0-9_]+$/;
const USERNAME_MAX = 100;
const SUMMARY_MAX = 5000;

export interface PersonInput {
  preferredUsername: string;
  name: string;
  summary: string;
}

export interface PersonPatch {
  name?: string | undefined;
  summary?: string | undefined;
}

/** Sets a profile's pictures inside the transaction that writes the profile (the media module's part). */
export type PicturesStep = (person: Actor, transaction: Transaction) => Promise<void>;

export interface PersonServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  accounts: UserStore;
  /** host[:port] of this instance: `name@<domain>` names a local profile. */
  domain: string;
  /** Whether the profile is the only administrator of a group (the members module; locks those groups). */
  onlyGroupAdministrator?: (actorId: string, transaction: Transaction) => Promise<boolean>;
}

/** The rules of profiles (Person actors owned by local users): identities, the default one, moderation lists. */
export class PersonService {
  constructor(private readonly options: PersonServiceOptions) {}

  /** Another profile for a signed-in user; it becomes the default when the user has none. */
  async create(owner: SessionUser, input: PersonInput, pictures?: PicturesStep): Promise<Actor> {
    return this.createFor(owner.id, input, false, pictures);
  }

  /**
   * The first profile of a registered account (confirmed or not), made its default. Anonymous callers
   * may do this, as in the reference: the account is named by its email.
   */
  async register(email: string, input: PersonInput, pictures?: PicturesStep): Promise<Actor> {
    const user = await this.options.accounts.findByEmail(email);
    if (!user) throw new NotFound(PERSON_MESSAGES.noUserWithEmail, REFUSAL);
    return this.createFor(user.id, input, true, pictures);
  }

  /** Changes the name, summary and pictures of one of the owner's profiles; omitted values stay. */
  async update(owner: SessionUser, id: string, patch: PersonPatch, pictures?: PicturesStep): Promise<Actor> {
    const current = await this.owned(owner, id);
    const summary = patch.summary === undefined ? undefined : validSummary(patch.summary);
    const changes = { displayName: patch.name, summary };
    // ActorStore.update fails on a patch with no values: a pictures-only change skips it.
    const unchanged = changes.displayName === undefined && changes.summary === undefined;
    if (!pictures) return unchanged ? current : this.options.actors.update(id, changes);
    return this.options.sequelize.transaction(async (transaction) => {
      const person = unchanged ? current : await this.options.actors.update(id, changes, { transaction });
      await pictures(person, transaction);
      return person;
    });
  }

  /** Deletes one of the owner's profiles; the default moves to the oldest remaining one. */
  async remove(owner: SessionUser, id: string): Promise<Actor> {
    const person = await this.owned(owner, id);
    return this.options.sequelize.transaction(async (transaction) => {
      // One deletion at a time per user: two concurrent ones could otherwise remove the last identity.
      await this.lockUser(owner.id, transaction);
      const identities = await this.personIds(owner.id, transaction);
      if (!identities.includes(person.id)) throw new NotFound(PERSON_MESSAGES.profileNotFound, REFUSAL);
      if (identities.length <= 1) throw new BadInput(PERSON_MESSAGES.lastIdentity, REFUSAL);
      if (await this.options.onlyGroupAdministrator?.(person.id, transaction)) {
        throw new BadInput(PERSON_MESSAGES.lastGroupAdministrator, REFUSAL);
      }
      const next = identities.find((personId) => personId !== person.id)!;
      // The default moves only if it was this profile (or unset); `user_default_actors` is this app's.
      await this.options.sequelize.query(
        `INSERT INTO user_default_actors (user_id, actor_id) VALUES ($2, $1)
         ON CONFLICT (user_id) DO UPDATE SET actor_id = $1 WHERE user_default_actors.actor_id = $3`,
        { bind: [next, owner.id, person.id], type: QueryTypes.INSERT, transaction },
      );
      await this.options.actors.remove(person.id, { transaction });
      return person;
    });
  }

  /** Makes one of the user's own profiles (by username) the default one. */
  async changeDefault(owner: SessionUser, preferredUsername: string): Promise<void> {
    const actor = await this.options.actors.findByUsername(preferredUsername, null);
    if (!actor) {
      throw new NotFound(`Profile with username ${preferredUsername} not found`, REFUSAL);
    }
    if (actor.type !== 'Person' || actor.userId !== owner.id) {
      throw new Forbidden(PERSON_MESSAGES.notYours, REFUSAL);
    }
    await this.options.sequelize.query(
      `INSERT INTO user_default_actors (user_id, actor_id) VALUES ($2, $1)
       ON CONFLICT (user_id) DO UPDATE SET actor_id = $1`,
      { bind: [actor.id, owner.id], type: QueryTypes.INSERT },
    );
  }

  /** A profile by id for anyone; suspended ones only for instance moderators. */
  async get(id: string, moderator: boolean): Promise<Actor> {
    const actor = await this.options.actors.findById(id);
    if (!actor || actor.type !== 'Person' || (actor.suspended && !moderator)) {
      throw new NotFound(`Person with ID ${id} not found`, REFUSAL);
    }
    return actor;
  }

  /** A profile by `name`, `name@<this domain>` or (later, with federation) `name@remote`. */
  async fetch(preferredUsername: string): Promise<Actor> {
    const address = parseAcct(preferredUsername, this.options.domain);
    // Remote profiles are looked up once federation can fetch them; until then only known ones match.
    const actor =
      address && (await this.options.actors.findByUsername(address.username, address.domain, ['Person']));
    if (!actor) throw new NotFound(`Person with username ${preferredUsername} not found`, REFUSAL);
    return actor;
  }

  /** One of the owner's profiles, or the reference's refusals. */
  private async owned(owner: SessionUser, id: string): Promise<Actor> {
    const actor = await this.options.actors.findById(id);
    if (!actor || actor.type !== 'Person') throw new NotFound(PERSON_MESSAGES.profileNotFound, REFUSAL);
    if (actor.userId !== owner.id) throw new Forbidden(PERSON_MESSAGES.notOwned, REFUSAL);
    return actor;
  }

  private async createFor(
    userId: string,
    input: PersonInput,
    firstOnly: boolean,
    pictures?: PicturesStep,
  ): Promise<Actor> {
    // The reference lower-cases the name before checking it.
    // The reference refuses a second profile before looking at the new one.
    if (firstOnly && (await this.personIds(userId)).length > 0) throw alreadyRegistered();
    const username = validUsername(input.preferredUsername.toLowerCase());
    const summary = validSummary(input.summary);
    if (await this.options.actors.findByUsername(username, null)) throw usernameTaken();
    try {
      return await this.options.sequelize.transaction(async (transaction) => {
        await this.lockUser(userId, transaction);
        if (firstOnly && (await this.personIds(userId, transaction)).length > 0) throw alreadyRegistered();
        const person = await this.options.actors.createLocal(
          { type: 'Person', username, displayName: input.name, summary, userId },
          { transaction },
        );
        // The first profile becomes the default; registerPerson always makes its profile the default.
        await this.options.sequelize.query(
          `INSERT INTO user_default_actors (user_id, actor_id) VALUES ($2, $1)
           ON CONFLICT (user_id) DO ${firstOnly ? 'UPDATE SET actor_id = $1' : 'NOTHING'}`,
          { bind: [person.id, userId], type: QueryTypes.INSERT, transaction },
        );
        if (pictures) await pictures(person, transaction);
        return person;
      });
    } catch (error) {
      // Lost a race for the name with another request.
      if (error instanceof Conflict && error.code === 'username_taken') throw usernameTaken();
      throw error;
    }
  }

  private async lockUser(userId: string, transaction: Transaction): Promise<void> {
    const rows = await this.options.sequelize.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', {
      bind: [userId],
      type: QueryTypes.SELECT,
      transaction,
    });
    if (rows.length === 0) throw new NotFound('User not found', { code: 'user_not_found' });
  }

  private async personIds(userId: string, transaction?: Transaction): Promise<string[]> {
    const rows = await this.options.sequelize.query<{ id: string }>(
      `SELECT id FROM actors WHERE user_id = $1 AND type = 'Person' AND domain IS NULL ORDER BY id`,
      { bind: [userId], type: QueryTypes.SELECT, transaction },
    );
    return rows.map((row) => String(row.id));
  }
}

function validUsername(username: string): string {
  if (username.length > USERNAME_MAX)
    throw BadInput.field('preferred_username', PERSON_MESSAGES.usernameTooLong);
  if (!USERNAME.test(username)) throw BadInput.field('preferred_username', PERSON_MESSAGES.usernameFormat);
  return username;
}

function validSummary(summary: string): string {
  const clean = sanitizeSummary(summary);
  if (clean.length > SUMMARY_MAX) throw BadInput.field('summary', PERSON_MESSAGES.summaryTooLong);
  return clean;
}

function usernameTaken(): BadInput {
  return BadInput.field('preferred_username', PERSON_MESSAGES.usernameTaken);
}

function alreadyRegistered(): Conflict {
  return new Conflict(PERSON_MESSAGES.alreadyRegistered, REFUSAL);
}
