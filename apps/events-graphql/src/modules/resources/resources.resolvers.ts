import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Group } from './resolvers/Group.js';
import { createResource } from './resolvers/Mutation/createResource.js';
import { deleteResource } from './resolvers/Mutation/deleteResource.js';
import { previewResourceLink } from './resolvers/Mutation/previewResourceLink.js';
import { updateResource } from './resolvers/Mutation/updateResource.js';
import { resource } from './resolvers/Query/resource.js';
import { Resource } from './resolvers/Resource.js';

/** The resources module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const resourcesResolvers: Resolvers = {
  Group,
  Resource,
  RootQueryType: { resource },
  RootMutationType: { createResource, updateResource, deleteResource, previewResourceLink },
};
