import type { EventResolvers } from '../../../graphql/resolvers-types.generated.js';
import { eventOptions } from './event-options.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A URL-friendly form of the title, as the reference derives it. */
function slugOf(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const Event: EventResolvers = {
  slug: (event) => slugOf(event.title),
  organizerActor: (event, _args, ctx) => ctx.loaders.persons.actors.load(event.organizerActorId),
  attributedTo: (event, _args, ctx) =>
    event.attributedToId === null ? null : ctx.loaders.persons.actors.load(event.attributedToId),
  tags: (event, _args, ctx) =>
    ctx.loaders.events.tags.load(event.id).then((tags) => tags.map((tag) => ({ ...tag, related: [] }))),
  options: async (event, _args, ctx) =>
    eventOptions(event.options, (await ctx.loaders.participations.counts.load(event.id)).participant),
  metadata: (event) => event.metadata,
  longEvent: (event) => event.endsOn !== null && event.endsOn.getTime() - event.beginsOn.getTime() > DAY_MS,
  // Not stored yet (issue 13 §1): no pictures, contacts or related events for events so far.
  picture: () => null,
  media: () => [],
  contacts: () => [],
  relatedEvents: () => [],
};
