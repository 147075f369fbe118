import DataLoader from 'dataloader';
import type { RemoteMediaFile } from '@agora/media';
import type { AppContext } from '../../context.js';
import type { MediaRow } from './media.model.js';
import type { Picture } from './media.service.js';
import { MediaSizesView } from './views/media-sizes.view.js';
import { PicturesView } from './views/pictures.view.js';

/** Batches of one operation: pictures and sizes of a list of profiles cost one query per field. */
export interface MediaLoaders {
  pictures: DataLoader<string, Partial<Record<Picture, MediaRow>>>;
  actorSize: DataLoader<string, number>;
  userSize: DataLoader<string, number>;
  /** Local copies of remote profiles' pictures, by remote URL. */
  remoteCopies: DataLoader<string, RemoteMediaFile | null>;
}

/** Built on first use by the request context (`ctx.loaders.media`), so they die with the operation. */
export function createMediaLoaders(app: AppContext): MediaLoaders {
  const pictures = new PicturesView(app);
  const sizes = new MediaSizesView(app);
  return {
    pictures: new DataLoader(async (actorIds) => {
      const byActor = await pictures.of(actorIds);
      return actorIds.map((id) => byActor.get(id) ?? {});
    }),
    actorSize: new DataLoader(async (actorIds) => {
      const found = await sizes.ofActors(actorIds);
      return actorIds.map((id) => found.get(id) ?? 0);
    }),
    userSize: new DataLoader(async (userIds) => {
      const found = await sizes.ofUsers(userIds);
      return userIds.map((id) => found.get(id) ?? 0);
    }),
    remoteCopies: new DataLoader(async (urls) => {
      const found = await app.remoteMedia.cache.findMany(urls);
      return urls.map((url) => found.get(url) ?? null);
    }),
  };
}
