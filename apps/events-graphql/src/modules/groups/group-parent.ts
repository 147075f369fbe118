import type { Actor } from '@agora/federation';

/**
 * What resolvers hand to the GraphQL `Group`: the stored actor itself (type `Group`); what the events
 * service adds to it (visibility, openness, address, members count) comes from `ctx.loaders.groups.details`.
 */
export type GroupParent = Actor;
