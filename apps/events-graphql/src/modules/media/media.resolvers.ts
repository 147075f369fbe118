import { EVENTS_POLICIES, ipSubject, type SessionUser } from '@agora/auth';
import { BadInput, Forbidden, Unauthenticated } from '@agora/core';
import type { Actor } from '@agora/federation';
import type { RemoteMediaFile } from '@agora/media';
import DataLoader from 'dataloader';
import type { Media, Resolvers } from '../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { personLoaders } from '../persons/person.loaders.js';
import { ownerOf, picturesOfPerson, type PersonParent } from '../persons/persons.resolvers.js';
import { requireUser } from '../users/guards.js';
import { mediaLoaders } from './media.loaders.js';
import type { MediaRow } from './media.model.js';
import { MEDIA_MESSAGES, type Picture } from './media.service.js';
import { UploadScalar, uploadedFile } from './upload.scalar.js';

/** The one place a media row becomes the GraphQL `Media`. */
export function toMedia(ctx: GraphQLContext, row: MediaRow): Media {
  return {
    id: String(row.id),
    name: row.name,
    alt: row.alt,
    contentType: row.contentType,
    size: row.size,
    url: ctx.app.media.url(row),
    metadata: { width: row.width, height: row.height, blurhash: row.blurhash },
  };
}

// Local copies of remote pictures, one query per operation (keyed by its context).
const remoteCopies = new WeakMap<GraphQLContext, DataLoader<string, RemoteMediaFile | null>>();

/** A remote profile's picture: our copy of it, or null while there is none (remote URLs are not shown). */
async function remotePicture(ctx: GraphQLContext, url: string): Promise<Media | null> {
  let loader = remoteCopies.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (urls) => {
      const found = await ctx.app.remoteMedia.cache.findMany(urls);
      return urls.map((key) => found.get(key) ?? null);
    });
    remoteCopies.set(ctx, loader);
  }
  const copy = await loader.load(url);
  if (!copy?.localUrl) return null;
  const { contentType, size, localUrl } = copy;
  return { id: null, name: null, alt: null, contentType, size, url: localUrl, metadata: null };
}

async function picture(person: PersonParent, which: Picture, ctx: GraphQLContext): Promise<Media | null> {
  if (!person.local) {
    const url = picturesOfPerson(person)[which];
    return url ? remotePicture(ctx, url) : null;
  }
  const row = (await mediaLoaders(ctx).pictures.load(person.id!))[which];
  return row ? toMedia(ctx, row) : null;
}

/** Sizes are for the owner and instance moderators; the reference answers others with raw errors. */
async function requireOwnerOrModerator(ctx: GraphQLContext, ownerId: string | null): Promise<void> {
  const viewer = await ctx.viewer();
  if (!viewer) throw new Unauthenticated('unauthenticated');
  if (viewer.id !== ownerId && !ctx.app.users.canModerate(viewer)) throw new Forbidden('unauthorized');
}

/** The profile an upload belongs to: the named one if it is the user's, else the default one. */
async function uploader(
  ctx: GraphQLContext,
  user: SessionUser,
  actorId: string | null | undefined,
): Promise<Actor> {
  if (actorId) {
    const actor = await ctx.app.actors.findById(actorId);
    if (!actor || actor.type !== 'Person' || actor.userId !== user.id) {
      throw new Forbidden(MEDIA_MESSAGES.notOwnedProfile, { code: 'unknown_error' });
    }
    return actor;
  }
  const actor = await personLoaders(ctx).defaultActor.load(user.id);
  if (!actor) throw new BadInput(MEDIA_MESSAGES.noProfile, { code: 'unknown_error' });
  return actor;
}

export const mediaResolvers: Resolvers = {
  Upload: UploadScalar,
  Person: {
    avatar: (person, _args, ctx) => picture(person, 'avatar', ctx),
    banner: (person, _args, ctx) => picture(person, 'banner', ctx),
    mediaSize: async (person, _args, ctx) => {
      await requireOwnerOrModerator(ctx, ownerOf(person));
      return mediaLoaders(ctx).actorSize.load(person.id!);
    },
  },
  User: {
    media: async (user, { page, limit }, ctx) => {
      await requireOwnerOrModerator(ctx, user.id);
      const found = await ctx.app.media.listOfUser(user.id!, page ?? 1, limit ?? 10);
      return { total: found.total, elements: found.elements.map((row) => toMedia(ctx, row)) };
    },
    mediaSize: async (user, _args, ctx) => {
      await requireOwnerOrModerator(ctx, user.id);
      return mediaLoaders(ctx).userSize.load(user.id!);
    },
  },
  RootQueryType: {
    media: async (_parent, { id }, ctx) => toMedia(ctx, await ctx.app.media.get(id)),
  },
  RootMutationType: {
    uploadMedia: async (_parent, { actorId, alt, file, name }, ctx) => {
      const user = await requireUser(ctx);
      if (ctx.ip) {
        await ctx.app.rateLimiter.enforce(
          [{ policy: EVENTS_POLICIES.uploadMedia.ip, subject: ipSubject(ctx.ip) }],
          { ip: ctx.ip },
        );
      }
      const part = uploadedFile(ctx, file);
      const owner = await uploader(ctx, user, actorId);
      const row = await ctx.app.media.upload(user.id, owner, part.path, { name, alt: alt ?? null });
      return toMedia(ctx, row);
    },
    removeMedia: async (_parent, { id }, ctx) => {
      const user = await requireUser(ctx);
      const removed = await ctx.app.media.remove(user.id, id);
      return { id: String(removed.id) };
    },
  },
};
