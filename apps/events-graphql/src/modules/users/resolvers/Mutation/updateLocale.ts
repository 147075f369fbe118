import { BadInput } from '@agora/core';
import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const updateLocale: RootMutationTypeResolvers['updateLocale'] = async (_parent, { locale }, ctx) => {
  const user = await requireUser(ctx);
  if (!locale) throw new BadInput('Invalid arguments passed', { code: 'invalid_argument', malformed: true });
  return ctx.app.users.updateLocale(user, locale);
};
