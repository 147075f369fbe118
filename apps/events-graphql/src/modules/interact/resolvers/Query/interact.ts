import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone (anonymous too, auth-per-operation.md): the object is public wherever it lives. */
export const interact: RootQueryTypeResolvers['interact'] = (_parent, { uri }, ctx) =>
  ctx.app.eventFederation.interact(uri);
