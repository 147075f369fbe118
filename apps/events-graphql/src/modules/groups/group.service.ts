import { randomUUID } from 'node:crypto';
import { isRowId } from '@agora/db';
import { BadInput, Conflict, Forbidden, NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import { parseAcct, type Actor, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { GroupActivityRecorder } from '../activities/activity.service.js';
import { insertAddress, replaceAddress } from '../events/address-writes.js';
import type { AddressInput } from '../events/event.service.js';
import { roleInGroup } from '../members/member-roles.js';
import { isAdministratorRole } from '../members/member-row.js';
import { sanitizeSummary } from '../persons/person-summary.js';
import { PERSON_MESSAGES } from '../persons/person.service.js';
import {
  GROUP_DETAILS_COLUMNS,
  type GroupDetails,
  type GroupOpenness,
  type GroupVisibility,
} from './group-row.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const GROUP_MESSAGES = {
  notFound: 'Group not found',
  nameTaken: 'A profile or group with that name already exists',
  onlyAdmins: 'Only admins can create groups',
  notAdministrator: 'Profile is not administrator for the group',
  deleteNotMember: 'Current profile is not a member of this group',
  deleteNotAdministrator: 'Current profile is not an administrator of the selected group',
  noProfile: 'You need to have an existing profile first',
  summaryTooLong: 'should be at most 5000 character(s)',
  usernameTooLong: 'should be at most 100 character(s)',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;
const USERNAME = /^[a-z0-9_]+$/;
const USERNAME_MAX = 100;
const SUMMARY_MAX = 5000;

export interface GroupInput {
  preferredUsername: string;
  name?: string | null | undefined;
  summary?: string | null | undefined;
  visibility?: GroupVisibility | null | undefined;
  openness?: GroupOpenness | null | undefined;
  manuallyApprovesFollowers?: boolean | null | undefined;
  physicalAddress?: AddressInput | null | undefined;
}

/** What updateGroup may change; undefined keeps a value, a null address removes it. */
export interface GroupPatch {
  name?: string | undefined;
  summary?: string | undefined;
  visibility?: GroupVisibility | undefined;
  openness?: GroupOpenness | undefined;
  manuallyApprovesFollowers?: boolean | undefined;
  physicalAddress?: AddressInput | null | undefined;
}

/** Sets a group's pictures inside the transaction that writes the group (the media module's part). */
export type GroupPicturesStep = (group: Actor, transaction: Transaction) => Promise<void>;

export interface GroupServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  /** host[:port] of this instance: `name@<domain>` names a local group. */
  domain: string;
  /** Member URLs are `<publicUrl>/member/<uuid>`. */
  publicUrl: string;
  /** The instance's `only_admin_can_create_groups` restriction. */
  onlyAdminCanCreateGroups: () => boolean;
  /** Records creations and changes in the group's activity stream, in their transaction (issue 14 §8). */
  activities?: GroupActivityRecorder;
}

/** The rules of groups: Group actors of the one actor model, with what this service adds to them. */
export class GroupService {
  constructor(private readonly options: GroupServiceOptions) {}

  /**
   * A new local group; `creator` (the caller's acting profile) becomes its administrator. The name is
   * checked against every local actor: persons and groups share one namespace (`/@name`).
   */
  async create(
    user: SessionUser,
    creator: Actor,
    input: GroupInput,
    pictures?: GroupPicturesStep,
  ): Promise<Actor> {
    if (this.options.onlyAdminCanCreateGroups() && user.role !== 'ADMINISTRATOR') {
      throw new Forbidden(GROUP_MESSAGES.onlyAdmins, REFUSAL);
    }
    // The reference lower-cases the name before checking it.
    const username = validUsername(input.preferredUsername.trim().toLowerCase());
    const summary = validSummary(input.summary ?? '');
    if (await this.options.actors.findByUsername(username, null)) throw nameTaken();
    const visibility = input.visibility ?? 'PUBLIC';
    try {
      return await this.options.sequelize.transaction(async (transaction) => {
        const group = await this.options.actors.createLocal(
          {
            type: 'Group',
            username,
            displayName: input.name ?? '',
            summary,
            manuallyApprovesFollowers: input.manuallyApprovesFollowers ?? false,
            discoverable: visibility === 'PUBLIC',
          },
          { transaction },
        );
        const addressId = input.physicalAddress
          ? await insertAddress(this.options.sequelize, input.physicalAddress, transaction)
          : null;
        await this.options.sequelize.query(
          `INSERT INTO group_details (actor_id, visibility, openness, physical_address_id)
           VALUES (:id, :visibility, :openness, :addressId)`,
          {
            transaction,
            replacements: { id: group.id, visibility, openness: input.openness ?? 'INVITE_ONLY', addressId },
          },
        );
        // The reference makes the creator an administrator (CREATOR is not given).
        const uuid = randomUUID();
        await this.options.sequelize.query(
          `INSERT INTO members (uuid, url, parent_id, actor_id, role) VALUES (:uuid, :url, :groupId, :actorId, 'ADMINISTRATOR')`,
          {
            transaction,
            replacements: {
              uuid,
              url: `${this.options.publicUrl}/member/${uuid}`,
              groupId: group.id,
              actorId: creator.id,
            },
          },
        );
        if (pictures) await pictures(group, transaction);
        await this.options.activities?.group('group_created', group, creator.id, transaction);
        return group;
      });
    } catch (error) {
      // Lost a race for the name with another request.
      if (error instanceof Conflict && error.code === 'username_taken') throw nameTaken();
      throw error;
    }
  }

  /** Changes a group: its administrators only (as the caller's acting profile). */
  async update(
    actor: Actor,
    groupId: string,
    patch: GroupPatch,
    pictures?: GroupPicturesStep,
  ): Promise<Actor> {
    const group = await this.localGroup(groupId);
    if (!isAdministratorRole(await roleInGroup(this.options.sequelize, actor.id, group.id))) {
      throw new Forbidden(GROUP_MESSAGES.notAdministrator, REFUSAL);
    }
    const summary = patch.summary === undefined ? undefined : validSummary(patch.summary);
    return this.options.sequelize.transaction(async (transaction) => {
      const details = await this.lockedDetails(group.id, transaction);
      const changes = {
        displayName: patch.name,
        summary,
        manuallyApprovesFollowers: patch.manuallyApprovesFollowers,
        discoverable: patch.visibility === undefined ? undefined : patch.visibility === 'PUBLIC',
      };
      const updated = await this.options.actors.update(group.id, changes, { transaction });
      let addressId = details.physicalAddressId;
      if (patch.physicalAddress === null) addressId = null;
      else if (patch.physicalAddress !== undefined) {
        addressId = await replaceAddress(
          this.options.sequelize,
          details.physicalAddressId,
          patch.physicalAddress,
          transaction,
        );
      }
      await this.options.sequelize.query(
        `UPDATE group_details SET visibility = :visibility, openness = :openness,
           physical_address_id = :addressId, updated_at = now()
         WHERE actor_id = :id`,
        {
          transaction,
          replacements: {
            id: group.id,
            visibility: patch.visibility ?? details.visibility,
            openness: patch.openness ?? details.openness,
            addressId,
          },
        },
      );
      if (patch.physicalAddress === null && details.physicalAddressId !== null) {
        await this.options.sequelize.query('DELETE FROM addresses WHERE id = :id', {
          transaction,
          replacements: { id: details.physicalAddressId },
        });
      }
      if (pictures) await pictures(updated, transaction);
      await this.options.activities?.group('group_updated', updated, actor.id, transaction, {
        oldName: group.displayName,
        changed: [
          ...(patch.name !== undefined && patch.name !== group.displayName ? ['name'] : []),
          ...(summary !== undefined && summary !== group.summary ? ['summary'] : []),
          ...(patch.visibility !== undefined && patch.visibility !== details.visibility
            ? ['visibility']
            : []),
          ...(patch.openness !== undefined && patch.openness !== details.openness ? ['openness'] : []),
          ...(patch.physicalAddress !== undefined ? ['address'] : []),
          ...(pictures ? ['pictures'] : []),
          ...(patch.manuallyApprovesFollowers !== undefined &&
          patch.manuallyApprovesFollowers !== group.manuallyApprovesFollowers
            ? ['manually_approves_followers']
            : []),
        ],
      });
      return updated;
    });
  }

  /**
   * Deletes a group (its administrators): its memberships, details and the events attributed to it go
   * with it, and its name stays reserved.
   */
  async remove(actor: Actor, groupId: string): Promise<Actor> {
    const group = await this.localGroup(groupId);
    const role = await roleInGroup(this.options.sequelize, actor.id, group.id);
    if (role === null) throw new Forbidden(GROUP_MESSAGES.deleteNotMember, REFUSAL);
    if (!isAdministratorRole(role)) throw new Forbidden(GROUP_MESSAGES.deleteNotAdministrator, REFUSAL);
    await this.options.sequelize.transaction(async (transaction) => {
      await this.options.sequelize.query('DELETE FROM events WHERE attributed_to_id = :id', {
        transaction,
        replacements: { id: group.id },
      });
      await this.options.actors.remove(group.id, { transaction });
    });
    return group;
  }

  /** A group by `name`, `name@<this domain>` or a known remote `name@domain`; suspended ones are not found. */
  async byUsername(preferredUsername: string): Promise<Actor> {
    const address = parseAcct(preferredUsername, this.options.domain);
    const group =
      address && (await this.options.actors.findByUsername(address.username, address.domain, ['Group']));
    if (!group || group.suspended) throw groupNotFound();
    return group;
  }

  /** A group by id; suspended ones only when `withSuspended` (instance moderators). */
  async byId(id: string, withSuspended: boolean): Promise<Actor> {
    const group = isRowId(id) ? await this.options.actors.findById(id) : null;
    if (!group || group.type !== 'Group' || (group.suspended && !withSuspended)) throw groupNotFound();
    return group;
  }

  /** `getGroup`: any group by id, suspended ones included, with the reference's own text when none. */
  async forModerators(id: string): Promise<Actor> {
    return this.byId(id, true).catch(() => {
      throw new NotFound(`Group with ID ${id} not found`, REFUSAL);
    });
  }

  private async localGroup(groupId: string): Promise<Actor> {
    const group = await this.byId(groupId, false);
    if (!group.local) throw groupNotFound();
    return group;
  }

  /** The group's details row, locked until the transaction ends (membership changes queue on it too). */
  private async lockedDetails(groupId: string, transaction: Transaction): Promise<GroupDetails> {
    const [row] = await this.options.sequelize.query<GroupDetails>(
      `SELECT ${GROUP_DETAILS_COLUMNS} FROM group_details g WHERE g.actor_id = :id FOR UPDATE`,
      { type: QueryTypes.SELECT, replacements: { id: groupId }, transaction },
    );
    if (!row) throw groupNotFound();
    return row;
  }
}

export function groupNotFound(): NotFound {
  return new NotFound(GROUP_MESSAGES.notFound, { code: 'group_not_found' });
}

function validUsername(username: string): string {
  if (username.length > USERNAME_MAX)
    throw BadInput.field('preferred_username', GROUP_MESSAGES.usernameTooLong);
  if (!USERNAME.test(username)) throw BadInput.field('preferred_username', PERSON_MESSAGES.usernameFormat);
  return username;
}

function validSummary(summary: string): string {
  const clean = sanitizeSummary(summary);
  if (clean.length > SUMMARY_MAX) throw BadInput.field('summary', GROUP_MESSAGES.summaryTooLong);
  return clean;
}

function nameTaken(): Conflict {
  return new Conflict(GROUP_MESSAGES.nameTaken, REFUSAL);
}
