import type { StateToken } from '../../graphql/response-cache.js';
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

/**
 * `config` depends only on the configuration object, which is replaced on every change, so whole
 * responses to it can be reused until then. Anything in Config that varies with the caller (a GeoIP
 * countryCode/location, labels translated per Accept-Language) must end this, or join the token.
 */
export const configStateTokens: Record<string, StateToken> = {
  config: ({ app }) => app.instanceConfig.config(),
};
