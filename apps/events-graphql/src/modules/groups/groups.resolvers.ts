import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Group } from './resolvers/Group.js';
import { createGroup } from './resolvers/Mutation/createGroup.js';
import { deleteGroup } from './resolvers/Mutation/deleteGroup.js';
import { updateGroup } from './resolvers/Mutation/updateGroup.js';
import { getGroup } from './resolvers/Query/getGroup.js';
import { group } from './resolvers/Query/group.js';
import { groupById } from './resolvers/Query/groupById.js';
import { groups } from './resolvers/Query/groups.js';

/** The groups module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const groupsResolvers: Resolvers = {
  Group,
  RootQueryType: { group, groupById, getGroup, groups },
  RootMutationType: { createGroup, updateGroup, deleteGroup },
};
