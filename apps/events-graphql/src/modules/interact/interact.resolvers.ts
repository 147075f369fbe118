import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { isActor } from '../../federation/events.federation.js';
import { interact } from './resolvers/Query/interact.js';

/** `interact(uri)` (not-shown.md §5): remote objects by URL through the guarded client. */
export const interactResolvers: Resolvers = {
  Interactable: { __resolveType: (found) => (isActor(found) ? 'Group' : 'Event') },
  RootQueryType: { interact },
};
