import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { AddressInput } from './event.service.js';

/** An address's values as stored: texts verbatim (they are shown as text), the point split. */
function addressValues(address: AddressInput): Record<string, unknown> {
  return {
    originId: address.originId ?? null,
    street: address.street ?? null,
    locality: address.locality ?? null,
    postalCode: address.postalCode ?? null,
    region: address.region ?? null,
    country: address.country ?? null,
    description: address.description ?? null,
    type: address.type ?? null,
    url: address.url ?? null,
    timezone: address.timezone || null,
    latitude: address.geom?.latitude ?? null,
    longitude: address.geom?.longitude ?? null,
  };
}

/** A new row of `addresses` (an event's or a group's own place); its id. */
export async function insertAddress(
  sequelize: Sequelize,
  address: AddressInput,
  transaction: Transaction,
): Promise<string> {
  const [row] = await sequelize.query<{ id: string }>(
    `INSERT INTO addresses (origin_id, street, locality, postal_code, region, country, description, type, url,
       timezone, latitude, longitude)
     VALUES (:originId, :street, :locality, :postalCode, :region, :country, :description, :type, :url,
       :timezone, :latitude, :longitude)
     RETURNING id::text AS id`,
    { type: QueryTypes.SELECT, transaction, replacements: addressValues(address) },
  );
  return row!.id;
}

/** An owner's own address row, changed in place (or created when it has none); its id. */
export async function replaceAddress(
  sequelize: Sequelize,
  currentId: string | null,
  address: AddressInput,
  transaction: Transaction,
): Promise<string> {
  if (currentId === null) return insertAddress(sequelize, address, transaction);
  await sequelize.query(
    `UPDATE addresses SET origin_id = :originId, street = :street, locality = :locality,
       postal_code = :postalCode, region = :region, country = :country, description = :description,
       type = :type, url = :url, timezone = :timezone, latitude = :latitude, longitude = :longitude,
       updated_at = now()
     WHERE id = :id`,
    { transaction, replacements: { ...addressValues(address), id: currentId } },
  );
  return currentId;
}
