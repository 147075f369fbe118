import type { AddressResolvers } from '../../../graphql/resolvers-types.generated.js';
import { formatPoint } from '../geo.js';

export const Address: AddressResolvers = {
  geom: (address) =>
    address.latitude === null || address.longitude === null
      ? null
      : formatPoint({ latitude: address.latitude, longitude: address.longitude }),
  // No picture provider is configured: places come without credits.
  pictureInfo: () => null,
};
