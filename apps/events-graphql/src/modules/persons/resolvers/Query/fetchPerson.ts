import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

export const fetchPerson: RootQueryTypeResolvers['fetchPerson'] = async (_parent, args, ctx) => {
  await requireUser(ctx);
  return ctx.app.persons.fetch(args.preferredUsername);
};
