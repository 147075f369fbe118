import type { UserSettingsResolvers } from '../../../graphql/resolvers-types.generated.js';

// The other fields are read as they are stored.
export const UserSettings: UserSettingsResolvers = {
  /** Null until the user chose a place. */
  location: (settings) =>
    settings.locationName === null && settings.locationGeohash === null && settings.locationRange === null
      ? null
      : { name: settings.locationName, geohash: settings.locationGeohash, range: settings.locationRange },
};
