import { mergeResolvers } from '@graphql-tools/merge';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { activitiesResolvers } from '../modules/activities/activities.resolvers.js';
import { commentsResolvers } from '../modules/comments/comments.resolvers.js';
import { configResolvers } from '../modules/config/config.resolvers.js';
import { conversationsResolvers } from '../modules/conversations/conversations.resolvers.js';
import { discussionsResolvers } from '../modules/discussions/discussions.resolvers.js';
import { eventsResolvers } from '../modules/events/events.resolvers.js';
import { exportsResolvers } from '../modules/exports/exports.resolvers.js';
import { interactResolvers } from '../modules/interact/interact.resolvers.js';
import { followersResolvers } from '../modules/followers/followers.resolvers.js';
import { groupsResolvers } from '../modules/groups/groups.resolvers.js';
import { languagesResolvers } from '../modules/languages/languages.resolvers.js';
import { mediaResolvers } from '../modules/media/media.resolvers.js';
import { membersResolvers } from '../modules/members/members.resolvers.js';
import { participationsResolvers } from '../modules/participations/participations.resolvers.js';
import { personsResolvers } from '../modules/persons/persons.resolvers.js';
import { resourcesResolvers } from '../modules/resources/resources.resolvers.js';
import { postsResolvers } from '../modules/posts/posts.resolvers.js';
import { scalarsResolvers } from '../modules/scalars/scalars.resolvers.js';
import { statisticsResolvers } from '../modules/statistics/statistics.resolvers.js';
import { todosResolvers } from '../modules/todos/todos.resolvers.js';
import { usersResolvers } from '../modules/users/users.resolvers.js';
import type { Resolvers } from './resolvers-types.generated.js';
import { loadTypeDefs } from './type-defs.js';

/** Each module's resolvers; a module adds its map here together with its SDL file. */
const MODULE_RESOLVERS: Resolvers[] = [
  scalarsResolvers,
  configResolvers,
  statisticsResolvers,
  languagesResolvers,
  usersResolvers,
  personsResolvers,
  mediaResolvers,
  eventsResolvers,
  commentsResolvers,
  participationsResolvers,
  exportsResolvers,
  interactResolvers,
  groupsResolvers,
  membersResolvers,
  followersResolvers,
  conversationsResolvers,
  resourcesResolvers,
  todosResolvers,
  // After groupsResolvers: their Group.posts/discussions/activity replace its empty pages.
  postsResolvers,
  discussionsResolvers,
  activitiesResolvers,
];

/** The executable schema: the modules' SDL with their resolvers; a resolver for a field not in the SDL fails. */
export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: loadTypeDefs(),
    resolvers: mergeResolvers(MODULE_RESOLVERS as Parameters<typeof mergeResolvers>[0]),
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
