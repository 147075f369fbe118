import type { Actor } from '@agora/federation';
import type { EventResolvers } from '../../../graphql/resolvers-types.generated.js';
import { eventOptions } from './event-options.js';

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
  longEvent: (event, _args, ctx) => ctx.app.events.isLongEvent(event),
  physicalAddress: (event, _args, ctx) =>
    event.physicalAddressId === null ? null : ctx.loaders.events.addresses.load(event.physicalAddressId),
  picture: (event, _args, ctx) =>
    event.pictureId === null ? null : ctx.loaders.events.pictures.load(event.pictureId),
  media: async (event, _args, ctx) => {
    const picture = event.pictureId === null ? null : await ctx.loaders.events.pictures.load(event.pictureId);
    return picture ? [picture] : [];
  },
  contacts: async (event, _args, ctx) => {
    const ids = await ctx.loaders.events.contactIds.load(event.id);
    const actors = await ctx.loaders.persons.actors.loadMany(ids);
    return actors.filter((actor): actor is Actor => actor !== null && !(actor instanceof Error));
  },
  relatedEvents: (event, _args, ctx) => ctx.loaders.events.related.load(event.id),
};
