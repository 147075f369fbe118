import type { Actor, ActorType as StoredActorType } from '@agora/federation';
import type { ActorType, Resolvers, ResolversParentTypes } from '../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { requireRole, requireUser } from '../users/guards.js';
import { stagePictures, type StagedPictures } from '../media/media-input.js';
import { personLoaders, personService } from './person.loaders.js';
import type { PicturesStep } from './person.service.js';

const ACTOR_TYPES: Record<StoredActorType, ActorType> = {
  Person: 'PERSON',
  Group: 'GROUP',
  Application: 'APPLICATION',
  Organization: 'ORGANIZATION',
  Service: 'SERVICE',
};

/** The owning user travels with the GraphQL object (for `Person.user`) without being a field of it. */
const OWNER = Symbol('owner');
/** So do a remote profile's picture URLs (local ones resolve to their Media rows). */
const PICTURE_URLS = Symbol('picture urls');
/** What resolvers hand to the GraphQL `Person` type. */
export type PersonParent = ResolversParentTypes['Person'];

type PersonObject = PersonParent & {
  readonly [OWNER]: string | null;
  readonly [PICTURE_URLS]: { avatar: string | null; banner: string | null };
};

/** The one place an actor becomes the GraphQL `Person`. */
export function toPerson(actor: Actor): PersonParent {
  const person: PersonObject = {
    id: actor.id,
    type: ACTOR_TYPES[actor.type],
    preferredUsername: actor.username,
    name: actor.displayName,
    summary: actor.summary,
    domain: actor.domain,
    local: actor.local,
    url: actor.url ?? actor.uri,
    manuallyApprovesFollowers: actor.manuallyApprovesFollowers,
    suspended: actor.suspended,
    followersCount: actor.followersCount,
    followingCount: actor.followingCount,
    // Resolved by the media module (Person.avatar/banner/mediaSize).
    avatar: null,
    banner: null,
    mediaSize: null,
    // Resolved by Person.user, which checks who is asking.
    user: null,
    [OWNER]: actor.userId,
    [PICTURE_URLS]: { avatar: actor.avatarUrl, banner: actor.headerUrl },
  };
  return person;
}

/** The id of the user owning a profile (null for remote ones). */
export function ownerOf(person: PersonParent): string | null {
  return (person as Partial<PersonObject>)[OWNER] ?? null;
}

/** The picture URLs stored with the actor. */
export function picturesOfPerson(person: PersonParent): { avatar: string | null; banner: string | null } {
  return (person as Partial<PersonObject>)[PICTURE_URLS] ?? { avatar: null, banner: null };
}

const service = (ctx: GraphQLContext) => personService(ctx.app);

export const personsResolvers: Resolvers = {
  Actor: {
    // Persons are the only actors served so far; groups come with their module.
    __resolveType: () => 'Person',
  },
  Person: {
    user: async (person, _args, ctx) => {
      const owner = ownerOf(person);
      const viewer = await ctx.viewer();
      if (!owner || !viewer) return null;
      if (viewer.id === owner) return viewer;
      if (!ctx.app.users.canModerate(viewer)) return null;
      const user = await personLoaders(ctx).user.load(owner);
      return user;
    },
  },
  User: {
    actors: async (user, _args, ctx) => (await personLoaders(ctx).identities.load(user.id!)).map(toPerson),
    defaultActor: async (user, _args, ctx) => {
      const actor = await personLoaders(ctx).defaultActor.load(user.id!);
      return actor ? toPerson(actor) : null;
    },
  },
  RootQueryType: {
    person: async (_parent, { id }, ctx) => {
      const viewer = await ctx.viewer();
      return toPerson(await service(ctx).get(id, viewer !== null && ctx.app.users.canModerate(viewer)));
    },
    fetchPerson: async (_parent, { preferredUsername }, ctx) => {
      await requireUser(ctx);
      return toPerson(await service(ctx).fetch(preferredUsername));
    },
    loggedPerson: async (_parent, _args, ctx) => {
      const user = await requireUser(ctx);
      const actor = await personLoaders(ctx).defaultActor.load(user.id);
      return actor ? toPerson(actor) : null;
    },
    identities: async (_parent, _args, ctx) => {
      const user = await requireUser(ctx);
      return (await personLoaders(ctx).identities.load(user.id)).map(toPerson);
    },
    persons: async (_parent, args, ctx) => {
      await requireRole(ctx, 'MODERATOR');
      const { elements, total } = await service(ctx).list({
        preferredUsername: args.preferredUsername ?? '',
        name: args.name ?? '',
        domain: args.domain ?? '',
        local: args.local ?? true,
        suspended: args.suspended ?? false,
        page: args.page ?? 1,
        limit: args.limit ?? 10,
      });
      return { elements: elements.map(toPerson), total };
    },
    searchPersons: async (_parent, { term, page, limit }, ctx) => {
      await requireRole(ctx, 'MODERATOR');
      const { elements, total } = await service(ctx).search(term ?? '', page ?? 1, limit ?? 10);
      return { elements: elements.map(toPerson), total };
    },
  },
  RootMutationType: {
    createPerson: async (_parent, { preferredUsername, name, summary, avatar, banner }, ctx) => {
      const user = await requireUser(ctx);
      const input = { preferredUsername, name: name ?? '', summary: summary ?? '' };
      const pictures = await stagePictures(ctx, user.id, { avatar, banner });
      const person = await ctx.app.media.withStaged(pictures.staged, () =>
        service(ctx).create(user, input, withPictures(ctx, pictures)),
      );
      forgetDefault(ctx, user.id);
      return toPerson(person);
    },
    updatePerson: async (_parent, { id, name, summary, avatar, banner }, ctx) => {
      const user = await requireUser(ctx);
      const patch = { name: name ?? undefined, summary: summary ?? undefined };
      const pictures = await stagePictures(ctx, user.id, { avatar, banner });
      const person = await ctx.app.media.withStaged(pictures.staged, () =>
        service(ctx).update(user, id, patch, withPictures(ctx, pictures)),
      );
      return toPerson(person);
    },
    deletePerson: async (_parent, { id }, ctx) => {
      const user = await requireUser(ctx);
      const person = await service(ctx).remove(user, id);
      forgetDefault(ctx, user.id);
      return toPerson(person);
    },
    registerPerson: async (_parent, { email, preferredUsername, name, summary, avatar, banner }, ctx) => {
      const input = { preferredUsername, name: name ?? '', summary: summary ?? '' };
      // Anonymous: new uploads only (an account without a profile owns no media to reuse).
      const pictures = await stagePictures(ctx, null, { avatar, banner });
      const person = await ctx.app.media.withStaged(pictures.staged, () =>
        service(ctx).register(email, input, withPictures(ctx, pictures)),
      );
      return toPerson(person);
    },
    changeDefaultActor: async (_parent, { preferredUsername }, ctx) => {
      const user = await requireUser(ctx);
      await service(ctx).changeDefault(user, preferredUsername);
      forgetDefault(ctx, user.id);
      return user;
    },
  },
};

/** The step that sets a profile's new pictures in the transaction writing it (none: no step). */
function withPictures(ctx: GraphQLContext, pictures: StagedPictures): PicturesStep | undefined {
  if (Object.keys(pictures.choices).length === 0) return undefined;
  return (actor, transaction) => ctx.app.media.setPictures(actor, pictures.choices, transaction);
}

/** A later field of the same operation must see the new default and identities. */
function forgetDefault(ctx: GraphQLContext, userId: string): void {
  const loaders = personLoaders(ctx);
  loaders.defaultActor.clear(userId);
  loaders.identities.clear(userId);
}
