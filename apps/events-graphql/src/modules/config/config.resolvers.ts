import type { Resolvers } from '../../graphql/resolvers-types.generated.js';

export const configResolvers: Resolvers = {
  RootQueryType: {
    config: (_parent, _args, { app }) => app.instanceConfig.config(),
  },
  Config: {
    terms: (config, { locale }) => config.legal.terms(locale ?? 'en'),
    privacy: (config, { locale }) => config.legal.privacy(locale ?? 'en'),
  },
};
