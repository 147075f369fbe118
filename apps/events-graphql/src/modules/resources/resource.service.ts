import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, isUuid, type Logger, NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { roleInGroup } from '../members/member-roles.js';
import { isMemberRole } from '../members/member-row.js';
import type { LinkPreviews, LinkMetadata } from './link-preview.js';
import { isRootFolder, RESOURCE_COLUMNS, rootFolder, type ResourceRow } from './resource-row.js';

/** The reference's texts (plain-string refusals: `unknown_error`, status_code 500), and ours where it has none. */
export const RESOURCE_MESSAGES = {
  notMember: 'Profile is not member of group',
  notFound: "Resource doesn't exist",
  createFailed: 'Error while creating resource',
  parentElsewhere: "Parent resource doesn't belong to this group",
  parentNotFolder: 'A resource can only be put in a folder',
  intoItself: "A folder can't be moved into itself or one of its subfolders",
  duplicate: 'A resource with this title already exists in this folder',
  blank: "can't be blank",
  tooLong: 'should be at most 200 character(s)',
  badUrl: 'must be an http or https URL',
  badType: 'is invalid',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;
export const RESOURCE_TYPES = ['folder', 'link', 'picture', 'pad', 'calc', 'visio'] as const;
const TITLE_MAX = 200;
const SUMMARY_MAX = 2000;
const URL_MAX = 2048;

export interface ResourceInput {
  groupId: string;
  parentId?: string | null | undefined;
  title: string;
  summary?: string | null | undefined;
  resourceUrl?: string | null | undefined;
  type?: string | null | undefined;
}

/** `undefined` keeps a value; `parentId: null` moves the resource to the group's root. */
export interface ResourcePatch {
  title?: string | null | undefined;
  summary?: string | null | undefined;
  parentId?: string | null | undefined;
  resourceUrl?: string | null | undefined;
}

export interface ResourceServiceOptions {
  sequelize: Sequelize;
  previews: LinkPreviews;
  logger: Logger;
  /** Resource URLs are `<publicUrl>/resource/<uuid>`. */
  publicUrl: string;
  /** Told after each committed change (group federation). */
  hooks?: ResourceHooks;
}

/** After-commit hooks: created, updated (renamed, moved: with what it was) or deleted by `actorId`. */
export interface ResourceHooks {
  created(resource: ResourceRow, actorId: string): Promise<void>;
  updated(before: ResourceRow, after: ResourceRow, actorId: string): Promise<void>;
  deleted(resource: ResourceRow, actorId: string): Promise<void>;
}

/**
 * The rules of a group's shared resources (spec §2.2: members only; behaviour 27). Folders hold
 * children; a resource's `path` is derived from its folders' titles and its own, so a rename or a move
 * rewrites the paths of everything beneath it in one statement inside the write's transaction.
 */
export class ResourceService {
  constructor(private readonly options: ResourceServiceOptions) {}

  async create(actor: Actor, input: ResourceInput): Promise<ResourceRow> {
    await this.requireMember(actor, input.groupId);
    const type = input.type ?? 'link';
    if (!(RESOURCE_TYPES as readonly string[]).includes(type))
      throw BadInput.field('type', RESOURCE_MESSAGES.badType);
    const title = validTitle(input.title);
    const summary = validSummary(input.summary);
    const resourceUrl = type === 'folder' ? optionalUrl(input.resourceUrl) : requiredUrl(input.resourceUrl);
    // The page's preview is read before the transaction: a slow remote never holds a row lock.
    const metadata = resourceUrl ? await this.metadataOf(resourceUrl) : null;
    const id = randomUUID();
    const created = await uniquePaths(() =>
      this.options.sequelize.transaction(async (transaction) => {
        await lockTree(this.options.sequelize, input.groupId, transaction);
        const parent = await this.parentFolder(input.parentId ?? null, input.groupId, transaction, 'create');
        const path = childPath(parent?.path ?? '', title);
        await this.refuseTaken(input.groupId, path, null, transaction);
        const [row] = await this.options.sequelize.query<ResourceRow>(
          `INSERT INTO resources AS r (id, url, group_id, creator_id, parent_id, type, title, summary,
           resource_url, metadata, path)
         VALUES (:id, :url, :groupId, :creatorId, :parentId, :type, :title, :summary, :resourceUrl,
           :metadata, :path)
         RETURNING ${RESOURCE_COLUMNS}`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: {
              id,
              url: `${this.options.publicUrl}/resource/${id}`,
              groupId: input.groupId,
              creatorId: actor.id,
              parentId: parent?.id ?? null,
              type,
              title,
              summary,
              resourceUrl,
              metadata: jsonOrNull(metadata),
              path,
            },
          },
        );
        return row!;
      }),
    );
    await this.options.hooks?.created(created, actor.id);
    return created;
  }

  /** Rename, move (into another folder of the group, or to its root), new summary or link. */
  async update(actor: Actor, id: string, patch: ResourcePatch): Promise<ResourceRow> {
    const current = await this.find(id);
    if (!current) throw new NotFound(RESOURCE_MESSAGES.notFound, REFUSAL);
    await this.requireMember(actor, current.groupId);
    const title = patch.title === undefined || patch.title === null ? undefined : validTitle(patch.title);
    const summary = patch.summary === undefined ? undefined : validSummary(patch.summary);
    const resourceUrl =
      patch.resourceUrl === undefined || current.type === 'folder'
        ? undefined
        : requiredUrl(patch.resourceUrl);
    const metadata =
      resourceUrl !== undefined && resourceUrl !== current.resourceUrl
        ? await this.metadataOf(resourceUrl!)
        : undefined;
    let before: ResourceRow = current;
    const updated = await uniquePaths(() =>
      this.options.sequelize.transaction(async (transaction) => {
        await lockTree(this.options.sequelize, current.groupId, transaction);
        // Read again under the lock: a move that committed meanwhile changed paths and parents.
        const resource = await this.find(id, transaction);
        if (!resource) throw new NotFound(RESOURCE_MESSAGES.notFound, REFUSAL);
        before = resource;
        const parentId = patch.parentId === undefined ? resource.parentId : patch.parentId;
        const parent = await this.parentFolder(parentId, resource.groupId, transaction, 'update');
        if (parent && (parent.id === resource.id || parent.path.startsWith(`${resource.path}/`))) {
          throw BadInput.field('parent_id', RESOURCE_MESSAGES.intoItself);
        }
        const path = childPath(parent?.path ?? '', title ?? resource.title);
        if (path !== resource.path) {
          await this.refuseTaken(resource.groupId, path, resource.id, transaction);
          // Every descendant in one statement: the old path's prefix becomes the new one.
          await this.options.sequelize.query(
            `UPDATE resources SET path = :path || substr(path, :oldLength + 1), updated_at = now()
           WHERE group_id = :groupId AND path LIKE :descendants ESCAPE '\\'`,
            {
              transaction,
              replacements: {
                path,
                oldLength: resource.path.length,
                groupId: resource.groupId,
                descendants: `${likePrefix(resource.path)}/%`,
              },
            },
          );
        }
        const [row] = await this.options.sequelize.query<ResourceRow>(
          `UPDATE resources AS r SET title = :title, summary = :summary, parent_id = :parentId, path = :path,
           resource_url = :resourceUrl, metadata = :metadata, updated_at = now()
         WHERE r.id = :id RETURNING ${RESOURCE_COLUMNS}`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: {
              id: resource.id,
              title: title ?? resource.title,
              summary: summary === undefined ? resource.summary : summary,
              parentId: parent?.id ?? null,
              path,
              resourceUrl: resourceUrl ?? resource.resourceUrl,
              metadata: jsonOrNull(metadata === undefined ? resource.metadata : metadata),
            },
          },
        );
        return row!;
      }),
    );
    await this.options.hooks?.updated(before, updated, actor.id);
    return updated;
  }

  /** Deletes a resource; a folder takes everything beneath it (the foreign key cascades). */
  async remove(actor: Actor, id: string): Promise<ResourceRow> {
    const resource = await this.find(id);
    if (!resource) throw new NotFound(RESOURCE_MESSAGES.notFound, REFUSAL);
    await this.requireMember(actor, resource.groupId);
    await this.options.sequelize.transaction(async (transaction) => {
      await lockTree(this.options.sequelize, resource.groupId, transaction);
      await this.options.sequelize.query('DELETE FROM resources WHERE id = :id', {
        transaction,
        replacements: { id: resource.id },
      });
    });
    await this.options.hooks?.deleted(resource, actor.id);
    return resource;
  }

  /** `resource(path, username)` once the group is known: "/" is its root folder. */
  async byPath(actor: Actor, group: Actor, path: string): Promise<ResourceRow> {
    if (!isMemberRole(await roleInGroup(this.options.sequelize, actor.id, group.id))) {
      throw new Forbidden(RESOURCE_MESSAGES.notMember, REFUSAL);
    }
    if (path === '/') return rootFolder(group.id, group.createdAt);
    const [row] = await this.options.sequelize.query<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources r WHERE r.group_id = :groupId AND r.path = :path`,
      { type: QueryTypes.SELECT, replacements: { groupId: group.id, path } },
    );
    if (!row) throw new NotFound('Resource not found', { code: 'resource_not_found' });
    return row;
  }

  /** Whether a profile may read a group's resources (its members only). */
  async isMember(actorId: string, groupId: string): Promise<boolean> {
    return isMemberRole(await roleInGroup(this.options.sequelize, actorId, groupId));
  }

  private async requireMember(actor: Actor, groupId: string): Promise<void> {
    if (!isRowId(groupId) || !(await this.isMember(actor.id, groupId))) {
      throw new Forbidden(RESOURCE_MESSAGES.notMember, REFUSAL);
    }
  }

  private async find(id: string, transaction?: Transaction): Promise<ResourceRow | null> {
    if (!isUuid(id) || isRootFolder({ id })) return null;
    const [row] = await this.options.sequelize.query<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources r WHERE r.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id }, transaction },
    );
    return row ?? null;
  }

  /** The folder a resource goes into (null: the group's root), with the reference's refusals. */
  private async parentFolder(
    parentId: string | null,
    groupId: string,
    transaction: Transaction,
    operation: 'create' | 'update',
  ): Promise<ResourceRow | null> {
    if (parentId === null || isRootFolder({ id: parentId })) return null;
    const parent = await this.find(parentId, transaction);
    if (!parent) {
      throw operation === 'create'
        ? new BadInput(RESOURCE_MESSAGES.createFailed, REFUSAL)
        : new NotFound(RESOURCE_MESSAGES.notFound, REFUSAL);
    }
    if (parent.groupId !== groupId) throw new Forbidden(RESOURCE_MESSAGES.parentElsewhere, REFUSAL);
    if (parent.type !== 'folder') {
      throw BadInput.field('parent_id', RESOURCE_MESSAGES.parentNotFolder);
    }
    return parent;
  }

  private async refuseTaken(
    groupId: string,
    path: string,
    exceptId: string | null,
    transaction: Transaction,
  ): Promise<void> {
    const [taken] = await this.options.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM resources WHERE group_id = :groupId AND path = :path',
      { type: QueryTypes.SELECT, replacements: { groupId, path }, transaction },
    );
    if (taken && taken.id !== exceptId) {
      throw BadInput.field('title', RESOURCE_MESSAGES.duplicate);
    }
  }

  /** The link's preview for a new or changed link; a page that cannot be read leaves it empty. */
  private async metadataOf(url: string): Promise<LinkMetadata | null> {
    try {
      return await this.options.previews.preview(url);
    } catch (error) {
      this.options.logger.debug({ err: error }, 'no preview for a resource link');
      return null;
    }
  }
}

/**
 * Serializes the writes to one group's resource tree (a transaction-scoped advisory lock keyed by the
 * group). Cycle and duplicate checks then read a tree no one else is changing: two folders moved into
 * each other at once cannot both pass, and no row-lock order can deadlock.
 */
async function lockTree(sequelize: Sequelize, groupId: string, transaction: Transaction): Promise<void> {
  await sequelize.query("SELECT pg_advisory_xact_lock(hashtextextended('resources:' || :groupId, 0))", {
    transaction,
    replacements: { groupId },
  });
}

/** Two writers racing for one path: the unique index refuses the second, with the duplicate's message. */
async function uniquePaths<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = (error as { parent?: { code?: string } }).parent?.code;
    if (code === '23505') {
      throw BadInput.field('title', RESOURCE_MESSAGES.duplicate);
    }
    throw error;
  }
}

function jsonOrNull(value: LinkMetadata | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

/** The reference's path: the parent's path, "/", the title without its slashes. */
function childPath(parentPath: string, title: string): string {
  return `${parentPath}/${title.replaceAll('/', '')}`;
}

function likePrefix(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function validTitle(title: string): string {
  const clean = title.trim();
  if (clean.replaceAll('/', '').trim() === '') throw BadInput.field('title', RESOURCE_MESSAGES.blank);
  if (Array.from(clean).length > TITLE_MAX) throw BadInput.field('title', RESOURCE_MESSAGES.tooLong);
  return clean;
}

function validSummary(summary: string | null | undefined): string | null {
  if (summary === null || summary === undefined) return null;
  const clean = summary.trim();
  if (clean.length > SUMMARY_MAX)
    throw BadInput.field('summary', `should be at most ${SUMMARY_MAX} character(s)`);
  return clean === '' ? null : clean;
}

function requiredUrl(value: string | null | undefined): string {
  const url = optionalUrl(value);
  if (url === null) throw BadInput.field('resource_url', RESOURCE_MESSAGES.blank);
  return url;
}

function optionalUrl(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  if (text === '') return null;
  try {
    const url = new URL(text);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.href.length <= URL_MAX)
      return url.href;
  } catch {
    // Reported below.
  }
  throw BadInput.field('resource_url', RESOURCE_MESSAGES.badUrl);
}
