import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../../users/guards.js';

/** Instance moderators: any group by id, suspended ones included. */
export const getGroup: RootQueryTypeResolvers['getGroup'] = async (_parent, { id }, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return ctx.app.groups.forModerators(id);
};
