import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

export const refreshToken: RootMutationTypeResolvers['refreshToken'] = (_parent, args, ctx) =>
  ctx.app.users.refresh(args.refreshToken);
