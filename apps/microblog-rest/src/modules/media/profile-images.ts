import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@agora/core';
import type { MediaLimits, MediaPipeline, MediaStorage } from '@agora/media';
import sharp from 'sharp';
import { mediaFamily } from './media-sniff.js';
import type { UploadedFile } from './multipart-upload.js';
import { blankFileError, fileSizeError, toUploadError } from './upload-errors.js';

export type ProfileImageKind = 'avatar' | 'header';

// Mastodon crops avatars to 400×400 and headers to 1500×500 (Paperclip's "#" geometry: fill, then crop).
const BOXES: Record<ProfileImageKind, { width: number; height: number }> = {
  avatar: { width: 400, height: 400 },
  header: { width: 1500, height: 500 },
};
// Still images are cropped here; an animated GIF keeps its frames (the pipeline shrinks it uncropped).
const CROPPABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif']);

export interface ProfileImagesDeps {
  pipeline: MediaPipeline;
  storage: MediaStorage;
  limits: MediaLimits;
  /** Where the cropped intermediate is written (removed right after). */
  tmpDir: string;
  logger: Logger;
}

/** Avatars and headers of local accounts: cropped, cleaned by the pipeline, stored; old ones removed. */
export class ProfileImages {
  private readonly base: string;

  constructor(private readonly deps: ProfileImagesDeps) {
    // The URL prefix of this storage, to recognise (and delete) the files it made.
    this.base = deps.storage.url('x').slice(0, -1);
  }

  /** Stores an uploaded avatar or header and returns its public URL. Errors: BadInput "Validation failed: …". */
  async store(kind: ProfileImageKind, upload: UploadedFile): Promise<string> {
    const attribute = kind === 'avatar' ? 'Avatar' : 'Header';
    const limit = kind === 'avatar' ? this.deps.limits.avatarBytes : this.deps.limits.bannerBytes;
    let cropped: string | null = null;
    try {
      if (upload.size === 0) throw blankFileError(attribute);
      if (upload.truncated || upload.size > limit) throw fileSizeError(attribute, limit);
      cropped = await this.crop(kind, upload.path);
      const processed = await this.deps.pipeline
        .process({ kind, input: cropped ?? upload.path })
        .catch((error: unknown) => {
          throw toUploadError(error, attribute);
        });
      // Only the original is shown (avatar_static too); the preview size is not needed.
      if (processed.files.small) await this.deps.pipeline.remove([processed.files.small.key]);
      return processed.files.original.url;
    } finally {
      // The request's temporary file goes before it is answered.
      await Promise.all([upload.path, cropped].map((file) => file && rm(file, { force: true })));
    }
  }

  /** Removes the file behind a URL this store handed out; other URLs (none, remote, defaults) are left. */
  async discard(url: string | null): Promise<void> {
    if (url === null || !url.startsWith(this.base)) return;
    await this.deps.pipeline.remove([url.slice(this.base.length)]).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'could not remove a replaced profile image');
    });
  }

  /** The image filled into its box and cropped to it, or null to leave it to the pipeline as it is. */
  private async crop(kind: ProfileImageKind, file: string): Promise<string | null> {
    const sniffed = await mediaFamily(file);
    if (!sniffed || !CROPPABLE.has(sniffed.mime)) return null;
    await mkdir(this.deps.tmpDir, { recursive: true });
    const target = path.join(this.deps.tmpDir, `${kind}-${randomBytes(12).toString('hex')}`);
    const { width, height } = BOXES[kind];
    try {
      const image = sharp(file, { limitInputPixels: this.deps.limits.imageMatrixLimit, failOn: 'error' })
        .autoOrient()
        .resize({ width, height, fit: 'cover' });
      await (sniffed.mime === 'image/jpeg' ? image.jpeg({ quality: 90 }) : image.png()).toFile(target);
      return target;
    } catch {
      // Damaged or too large: the pipeline refuses it with the right message.
      await rm(target, { force: true });
      return null;
    }
  }
}
