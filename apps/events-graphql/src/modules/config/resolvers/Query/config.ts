import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Built once per settings change; answered whole by the config answer cache when it can. */
export const config: RootQueryTypeResolvers['config'] = (_parent, _args, { app }) =>
  app.instanceConfig.config();
