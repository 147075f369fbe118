import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone (the seed's `groupById`); suspended groups only for instance moderators. */
export const groupById: RootQueryTypeResolvers['groupById'] = async (_parent, { id }, ctx) => {
  const viewer = await ctx.viewer();
  return ctx.app.groups.byId(id, viewer !== null && ctx.app.users.canModerate(viewer));
};
