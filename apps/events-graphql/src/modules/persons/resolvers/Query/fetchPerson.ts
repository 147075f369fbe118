import { Forbidden } from '@agora/core';
import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

export const fetchPerson: RootQueryTypeResolvers['fetchPerson'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const person = await ctx.app.persons.fetch(args.preferredUsername);
  // As the reference: only the caller's own profiles (someone else's: 403 "unauthorized").
  if (person.userId !== user.id) throw new Forbidden();
  return person;
};
