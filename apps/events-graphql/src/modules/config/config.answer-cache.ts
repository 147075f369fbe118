import { wholeAnswerCache } from '../../graphql/response-cache.js';

/**
 * `config` depends only on the configuration object, which is replaced on every change, so whole
 * responses to it can be reused until then. Anything in Config that varies with the caller (a GeoIP
 * countryCode/location, labels translated per Accept-Language) must end this, or join the token.
 */
export const configAnswerCache = () => wholeAnswerCache({ config: ({ app }) => app.instanceConfig.config() });
