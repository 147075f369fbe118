import type { FollowedGroupEventResolvers } from '../../../graphql/resolvers-types.generated.js';

export const FollowedGroupEvent: FollowedGroupEventResolvers = {
  event: (row) => row.event,
  group: (row, _args, ctx) => ctx.loaders.persons.actors.load(row.groupId),
  profile: (row, _args, ctx) => ctx.loaders.persons.actors.load(row.profileId),
  user: (row, _args, ctx) => ctx.loaders.users.records.load(row.userId),
};
