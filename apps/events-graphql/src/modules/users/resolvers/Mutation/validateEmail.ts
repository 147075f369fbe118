import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

export const validateEmail: RootMutationTypeResolvers['validateEmail'] = (_parent, { token }, ctx) =>
  ctx.app.users.validateEmail(token);
