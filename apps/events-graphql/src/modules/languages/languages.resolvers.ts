import type { Resolvers } from '../../graphql/resolvers-types.generated.js';

export const languagesResolvers: Resolvers = {
  RootQueryType: {
    languages: (_parent, { codes }, { app, locale }) =>
      app.languages.list(
        locale,
        codes?.filter((code): code is string => code !== null),
      ),
  },
};
