import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { exportEventParticipants } from './resolvers/Mutation/exportEventParticipants.js';

/** The exports module's resolvers. */
export const exportsResolvers: Resolvers = {
  RootMutationType: { exportEventParticipants },
};
