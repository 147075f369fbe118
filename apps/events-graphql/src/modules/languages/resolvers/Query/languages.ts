import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Named in the caller's locale (Accept-Language). */
export const languages: RootQueryTypeResolvers['languages'] = (_parent, { codes }, { app, locale }) =>
  app.languages.list(
    locale,
    codes?.filter((code): code is string => code !== null),
  );
