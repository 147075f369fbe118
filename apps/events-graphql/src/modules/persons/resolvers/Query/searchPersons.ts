import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../../users/guards.js';
import { PersonsView } from '../../views/persons.view.js';

export const searchPersons: RootQueryTypeResolvers['searchPersons'] = async (_parent, args, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return new PersonsView(ctx.app).search(args.term ?? '', args.page ?? 1, args.limit ?? 10);
};
