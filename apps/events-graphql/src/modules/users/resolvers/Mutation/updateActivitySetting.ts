import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const updateActivitySetting: RootMutationTypeResolvers['updateActivitySetting'] = async (
  _parent,
  args,
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.activitySettings.update(user, args);
};
