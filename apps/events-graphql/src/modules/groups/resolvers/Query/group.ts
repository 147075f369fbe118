import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone: a group by `name` or `name@domain`; what a caller sees of it is decided field by field. */
export const group: RootQueryTypeResolvers['group'] = (_parent, { preferredUsername }, ctx) =>
  ctx.app.groups.byUsername(preferredUsername);
