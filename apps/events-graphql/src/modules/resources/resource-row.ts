import type { LinkMetadata } from './link-preview.js';

/** A stored resource (table `resources`): what the GraphQL `Resource` resolves from. */
export interface ResourceRow {
  id: string;
  url: string;
  groupId: string;
  creatorId: string | null;
  parentId: string | null;
  /** folder, link, picture, pad, calc or visio. */
  type: string;
  title: string;
  summary: string | null;
  resourceUrl: string | null;
  metadata: LinkMetadata | null;
  /** "/" joined titles of its folders and itself; "/" is a group's root. */
  path: string;
  publishedAt: Date;
  insertedAt: Date;
  updatedAt: Date;
}

export const RESOURCE_COLUMNS = `r.id::text AS "id", r.url, r.group_id::text AS "groupId",
  r.creator_id::text AS "creatorId", r.parent_id::text AS "parentId", r.type, r.title, r.summary,
  r.resource_url AS "resourceUrl", r.metadata, r.path, r.published_at AS "publishedAt",
  r.inserted_at AS "insertedAt", r.updated_at AS "updatedAt"`;

const ROOT_PREFIX = 'root_';

/**
 * A group's root folder, as the reference answers `resource(path: "/")`: not stored, its id names the
 * group, and its children are the group's top-level resources.
 */
export function rootFolder(groupId: string, createdAt: Date): ResourceRow {
  return {
    id: `${ROOT_PREFIX}${groupId}`,
    url: '',
    groupId,
    creatorId: null,
    parentId: null,
    type: 'folder',
    title: 'Root',
    summary: null,
    resourceUrl: null,
    metadata: null,
    path: '/',
    publishedAt: createdAt,
    insertedAt: createdAt,
    updatedAt: createdAt,
  };
}

export function isRootFolder(resource: Pick<ResourceRow, 'id'>): boolean {
  return resource.id.startsWith(ROOT_PREFIX);
}
