import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../../users/guards.js';

/** Instance moderators: groups by username, name, domain, locality and suspension. */
export const groups: RootQueryTypeResolvers['groups'] = async (_parent, args, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return ctx.loaders.groups.view.list({
    preferredUsername: args.preferredUsername ?? '',
    name: args.name ?? '',
    domain: args.domain ?? '',
    local: args.local ?? true,
    suspended: args.suspended ?? false,
    page: args.page ?? 1,
    limit: args.limit ?? 10,
  });
};
