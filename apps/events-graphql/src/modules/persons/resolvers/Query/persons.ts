import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../../users/guards.js';
import { PersonsView } from '../../views/persons.view.js';

export const persons: RootQueryTypeResolvers['persons'] = async (_parent, args, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return new PersonsView(ctx.app).list({
    preferredUsername: args.preferredUsername ?? '',
    name: args.name ?? '',
    domain: args.domain ?? '',
    local: args.local ?? true,
    suspended: args.suspended ?? false,
    page: args.page ?? 1,
    limit: args.limit ?? 10,
  });
};
