import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { forgetIdentities } from '../../person.loaders.js';

export const deletePerson: RootMutationTypeResolvers['deletePerson'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  const person = await ctx.app.persons.remove(user, id);
  forgetIdentities(ctx.loaders.persons, user.id);
  return person;
};
