import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const changeEmail: RootMutationTypeResolvers['changeEmail'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.users.changeEmail(user, args.email, args.password, ctx.locale);
};
