import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

export const loggedPerson: RootQueryTypeResolvers['loggedPerson'] = async (_parent, _args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.loaders.persons.defaultActor.load(user.id);
};
