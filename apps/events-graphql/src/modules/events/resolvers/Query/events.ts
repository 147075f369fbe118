import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone lists the future public events, a page at a time (limit below 100), optionally around a place. */
export const events: RootQueryTypeResolvers['events'] = (_parent, args, ctx) =>
  ctx.app.events.list({
    page: args.page ?? 1,
    limit: args.limit ?? 10,
    orderBy: args.orderBy ?? 'BEGINS_ON',
    direction: args.direction ?? 'ASC',
    location: args.location,
    radius: args.radius,
    longEvents: args.longEvents,
  });
