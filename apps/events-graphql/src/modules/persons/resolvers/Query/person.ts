import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone may read a profile; suspended ones only instance moderators. */
export const person: RootQueryTypeResolvers['person'] = async (_parent, { id }, ctx) => {
  const viewer = await ctx.viewer();
  return ctx.app.persons.get(id, viewer !== null && ctx.app.users.canModerate(viewer));
};
