import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Config } from './resolvers/Config.js';
import { config } from './resolvers/Query/config.js';

/** The config module's resolvers (its whole answers are cached by config.answer-cache.ts). */
export const configResolvers: Resolvers = {
  Config,
  RootQueryType: { config },
};
