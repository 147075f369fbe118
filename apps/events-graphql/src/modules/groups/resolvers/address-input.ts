import type { AddressInput as AddressArgs } from '../../../graphql/resolvers-types.generated.js';
import type { AddressInput } from '../../events/event.service.js';
import { parsePoint } from '../../events/geo.js';

/** An AddressInput argument as the service's input; null (removal) and undefined (kept) pass through. */
export function addressInput(address: AddressArgs | null | undefined): AddressInput | null | undefined {
  if (address === null || address === undefined) return address;
  // Its `id` would name the group's own address, which is changed in place: it is not read.
  const { id: _id, geom, ...fields } = address;
  // The Point scalar has already refused anything that does not parse.
  return { ...fields, geom: geom ? parsePoint(geom) : null };
}
