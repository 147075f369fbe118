import type { Actor, ActorDocumentOptions } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ADDRESS_COLUMNS, type AddressRow } from '../events/event-row.js';
import { GROUP_DETAILS_COLUMNS, type GroupDetails } from './group-row.js';

/**
 * The actor document options of the events service: a group's document also carries its
 * `memberCount`, `openness` and `location` (spec not-shown.md §5); its collections (members,
 * resources, todos, discussions, events, posts) are its URLs' endpoints (`federation/actor-urls.ts`).
 */
export function eventsActorDocuments(sequelize: Sequelize): (actor: Actor) => Promise<ActorDocumentOptions> {
  return async (actor) => {
    if (actor.type !== 'Group') return { flavour: 'events' };
    const [details] = await sequelize.query<GroupDetails>(
      `SELECT ${GROUP_DETAILS_COLUMNS} FROM group_details g WHERE g.actor_id = :id`,
      { type: QueryTypes.SELECT, replacements: { id: actor.id } },
    );
    if (!details) return { flavour: 'events' };
    const extra: Record<string, unknown> = {
      memberCount: details.membersCount,
      openness: details.openness.toLowerCase(),
    };
    if (details.physicalAddressId !== null) {
      const [address] = await sequelize.query<AddressRow>(
        `SELECT ${ADDRESS_COLUMNS} FROM addresses a WHERE a.id = :id`,
        {
          type: QueryTypes.SELECT,
          replacements: { id: details.physicalAddressId },
        },
      );
      if (address) extra.location = place(address);
    }
    return { flavour: 'events', extra };
  };
}

/** An address as an ActivityStreams Place with a schema.org PostalAddress. */
function place(address: AddressRow): Record<string, unknown> {
  const postal: Record<string, unknown> = { type: 'PostalAddress' };
  const put = (key: string, value: string | null) => {
    if (value) postal[key] = value;
  };
  put('streetAddress', address.street);
  put('addressLocality', address.locality);
  put('postalCode', address.postalCode);
  put('addressRegion', address.region);
  put('addressCountry', address.country);
  return {
    type: 'Place',
    ...(address.description ? { name: address.description } : {}),
    address: postal,
    ...(address.latitude !== null ? { latitude: address.latitude, longitude: address.longitude } : {}),
  };
}
