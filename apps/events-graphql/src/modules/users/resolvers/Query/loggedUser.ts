import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const loggedUser: RootQueryTypeResolvers['loggedUser'] = (_parent, _args, ctx) => requireUser(ctx);
