import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { MediaRow } from '../media/media.model.js';
import type { AddressRow, EventRow, TagRow } from './event-row.js';
import { EventDetailsView } from './views/event-details.view.js';
import { EventPagesView, type EventPage, type EventPageScope } from './views/event-pages.view.js';
import { EventTagsView } from './views/event-tags.view.js';

/** A page of one owner's events: the owner (profile or user) and the page asked. */
export interface EventPageKey {
  ownerId: string;
  page: number;
  limit: number;
}

/** Batches of one operation: a page of events costs one query per field, not one per event. */
export interface EventLoaders {
  tags: DataLoader<string, TagRow[]>;
  /** A profile's published events (`Person.organizedEvents`). */
  organized: DataLoader<EventPageKey, EventPage, string>;
  /** A user's drafts, of all their profiles (`User.drafts`). */
  drafts: DataLoader<EventPageKey, EventPage, string>;
  /** Addresses by id (`Event.physicalAddress`). */
  addresses: DataLoader<string, AddressRow | null>;
  /** Media by id (`Event.picture`, `Event.media`). */
  pictures: DataLoader<string, MediaRow | null>;
  /** Contacts' actor ids by event; the actors come from `ctx.loaders.persons.actors`. */
  contactIds: DataLoader<string, string[]>;
  /** Related events by event (`Event.relatedEvents`). */
  related: DataLoader<string, EventRow[]>;
}

function pageLoader(
  view: EventPagesView,
  scope: EventPageScope,
): DataLoader<EventPageKey, EventPage, string> {
  return new DataLoader(
    async (keys) => {
      // Owners asked for the same page share one query.
      const groups = new Map<string, EventPageKey[]>();
      for (const key of keys) {
        const group = `${key.page}:${key.limit}`;
        groups.set(group, [...(groups.get(group) ?? []), key]);
      }
      const pages = new Map<string, EventPage>();
      for (const [group, members] of groups) {
        const found = await view.pagesOf(
          scope,
          members.map((key) => key.ownerId),
          members[0]!.page,
          members[0]!.limit,
        );
        for (const [ownerId, page] of found) pages.set(`${group}:${ownerId}`, page);
      }
      return keys.map(
        (key) => pages.get(`${key.page}:${key.limit}:${key.ownerId}`) ?? { elements: [], total: 0 },
      );
    },
    { cacheKeyFn: (key) => `${key.page}:${key.limit}:${key.ownerId}` },
  );
}

/** Built on first use by the request context (`ctx.loaders.events`). */
export function createEventLoaders(app: AppContext): EventLoaders {
  const tags = new EventTagsView(app);
  const pages = new EventPagesView(app);
  const details = new EventDetailsView(app);
  const byKey =
    <T>(load: (keys: readonly string[]) => Promise<Map<string, T>>, missing: T) =>
    async (keys: readonly string[]) => {
      const found = await load(keys);
      return keys.map((key) => found.get(key) ?? missing);
    };
  return {
    tags: new DataLoader(async (eventIds) => {
      const byEvent = await tags.tagsOf(eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    }),
    organized: pageLoader(pages, 'organized'),
    drafts: pageLoader(pages, 'drafts'),
    addresses: new DataLoader(byKey((ids) => details.addresses(ids), null)),
    pictures: new DataLoader(byKey((ids) => details.media(ids), null)),
    contactIds: new DataLoader(byKey((ids) => details.contactIds(ids), [])),
    related: new DataLoader(byKey((ids) => details.related(ids), [])),
  };
}
