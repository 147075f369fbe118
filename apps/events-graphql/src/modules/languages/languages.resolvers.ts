import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { languages } from './resolvers/Query/languages.js';

export const languagesResolvers: Resolvers = {
  RootQueryType: { languages },
};
