import type { EventMetadataEntry, EventMetadataType } from '../event-row.js';
import type { AddressInput, EventInput } from '../event.service.js';
import { parsePoint } from '../geo.js';
import { storedOptions } from './event-options.js';

/** The arguments createEvent and updateEvent share, as the service's input (null = not given). */
export interface EventArgs {
  title?: string | null;
  description?: string | null;
  beginsOn?: Date | null;
  endsOn?: Date | null;
  status?: string | null;
  visibility?: string | null;
  joinOptions?: string | null;
  draft?: boolean | null;
  organizerActorId?: string | null;
  attributedToId?: string | null;
  category?: string | null;
  language?: string | null;
  options?: object | null;
  metadata?: Array<{
    key: string;
    title?: string | null;
    value: string;
    type?: EventMetadataType | null;
  } | null> | null;
  externalParticipationUrl?: string | null;
  onlineAddress?: string | null;
  phoneAddress?: string | null;
  tags?: Array<string | null> | null;
  contacts?: Array<{ id?: string | null } | null> | null;
  physicalAddress?: (Omit<AddressInput, 'geom'> & { geom?: string | null; id?: string | null }) | null;
}

const given = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

export function eventInput(args: EventArgs): EventInput {
  const metadata: EventMetadataEntry[] | undefined = args.metadata?.flatMap((entry) =>
    entry
      ? [{ key: entry.key, title: entry.title ?? null, value: entry.value, type: entry.type ?? 'STRING' }]
      : [],
  );
  return {
    title: given(args.title),
    description: given(args.description),
    beginsOn: given(args.beginsOn),
    // An explicit null clears the end; an absent one leaves it.
    endsOn: args.endsOn,
    status: given(args.status),
    visibility: given(args.visibility),
    joinOptions: given(args.joinOptions),
    draft: given(args.draft),
    organizerActorId: given(args.organizerActorId),
    attributedToId: args.attributedToId,
    category: given(args.category),
    language: given(args.language),
    options: storedOptions(args.options),
    metadata: given(metadata),
    externalParticipationUrl: args.externalParticipationUrl,
    onlineAddress: args.onlineAddress,
    phoneAddress: args.phoneAddress,
    tags: args.tags?.flatMap((tag) => (tag === null ? [] : [tag])),
    contacts: args.contacts?.flatMap((contact) => (contact?.id ? [contact.id] : [])),
    // An explicit null removes the address; an absent one leaves it. Its `id` names the event's own
    // address, which is changed in place, so it is not read.
    physicalAddress: args.physicalAddress === undefined ? undefined : addressInput(args.physicalAddress),
  };
}

function addressInput(
  address: (Omit<AddressInput, 'geom'> & { geom?: string | null; id?: string | null }) | null,
): AddressInput | null {
  if (address === null) return null;
  const { id: _id, geom, ...fields } = address;
  // The Point scalar has already refused anything that does not parse.
  return { ...fields, geom: geom ? parsePoint(geom) : null };
}
