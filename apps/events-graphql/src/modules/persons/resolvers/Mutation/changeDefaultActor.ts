import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { forgetIdentities } from '../../person.loaders.js';

export const changeDefaultActor: RootMutationTypeResolvers['changeDefaultActor'] = async (
  _parent,
  { preferredUsername },
  ctx,
) => {
  const user = await requireUser(ctx);
  await ctx.app.persons.changeDefault(user, preferredUsername);
  forgetIdentities(ctx.loaders.persons, user.id);
  return user;
};
