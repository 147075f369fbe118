import type { ResourceResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isMemberRole } from '../../members/member-row.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { isRootFolder } from '../resource-row.js';

const EMPTY_PAGE = { elements: [], total: 0 };

// id, title, summary, type, path, resourceUrl, metadata and the dates are read as stored.
export const Resource: ResourceResolvers = {
  url: (resource) => (isRootFolder(resource) ? null : resource.url),
  actor: (resource, _args, ctx) => ctx.loaders.persons.actors.load(resource.groupId),
  creator: (resource, _args, ctx) =>
    resource.creatorId === null ? null : ctx.loaders.persons.actors.load(resource.creatorId),
  parent: (resource, _args, ctx) =>
    resource.parentId === null ? null : ctx.loaders.resources.byId.load(resource.parentId),
  /** A folder's contents, folders first; members of its group only (others get an empty page). */
  children: async (resource, { page, limit }, ctx) => {
    if (resource.type !== 'folder') return EMPTY_PAGE;
    if (!isMemberRole((await groupViewer(ctx, resource.groupId)).role)) return EMPTY_PAGE;
    const key = { page: page ?? 1, limit: limit ?? 10 };
    return isRootFolder(resource)
      ? ctx.loaders.resources.topLevel.load({ parentId: resource.groupId, ...key })
      : ctx.loaders.resources.inFolder.load({ parentId: resource.id, ...key });
  },
};
