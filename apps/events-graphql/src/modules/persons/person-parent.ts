import type { Actor } from '@agora/federation';

/** What resolvers hand to the GraphQL `Person` (and `Actor`): the stored actor itself; field resolvers read it. */
export type PersonParent = Actor;
