import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BadInput } from '@agora/core';
import { MASTODON_MEDIA_LIMITS, MediaTooLarge, type MediaLimits } from '../limits/media-limits.js';
import { extensionFor, type MediaStorage } from '../storage/storage.port.js';
import { locateFfmpeg, type FfmpegTools } from './ffmpeg.js';
import { assertImageMatrix, blurhashOf, writeOriginal, writeSmall } from './image.processor.js';
import {
  dimensions,
  type MediaMeta,
  type ProcessedMedia,
  type StoredFile,
  type UploadPurpose,
} from './media.types.js';
import { Semaphore } from './semaphore.js';
import { newShortcode } from './shortcode.js';
import { sniff, SUPPORTED_MIME_TYPES, unsupported, type Sniffed } from './sniff.js';
import { spool, type MediaInput } from './spool.js';
import { assertVideoLimits, processVideo, probeUpload } from './video.processor.js';

export interface MediaPipelineOptions {
  storage: MediaStorage;
  limits?: MediaLimits;
  /** ffmpeg to use; default `ffmpeg` on PATH when it runs; `null` turns video and gifv off. */
  ffmpegPath?: string | null;
  /** Where uploads are spooled while processed (default the OS temp folder); emptied after every job. */
  tmpDir?: string;
  /** Uploads processed at once; the rest wait (bounds memory and the libuv pool sharp runs on). */
  concurrency?: number;
}

export interface ProcessRequest {
  /** What the upload is for: attachments may be any media, the others images only. */
  kind?: UploadPurpose;
  /** The bytes, a stream of them, or a local file path the caller owns (never deleted). */
  input: MediaInput;
  /** Mastodon focal point, x and y in [-1, 1]. */
  focus?: { x: number; y: number };
}

export interface MediaPipeline {
  /** Stores an upload, or throws (BadInput / MediaTooLarge) leaving nothing behind. */
  process(request: ProcessRequest): Promise<ProcessedMedia>;
  /** Deletes every stored file of a processed upload (or the given keys). */
  remove(media: ProcessedMedia | readonly string[]): Promise<void>;
  /** The upload types accepted here (video only with ffmpeg), for instance configuration. */
  supportedMimeTypes(): Promise<string[]>;
}

const FOLDERS: Record<UploadPurpose, string> = {
  attachment: 'media_attachments',
  avatar: 'avatars',
  banner: 'banners',
  header: 'headers',
};

// Stored types of passed-through audio (file-type has a few non-standard names).
const AUDIO_TYPES: Record<string, string> = { 'audio/x-flac': 'audio/flac', 'audio/x-m4a': 'audio/mp4' };

interface Output {
  file: string;
  contentType: string;
  size: number;
  width?: number;
  height?: number;
}

interface Processed {
  type: ProcessedMedia['type'];
  original: Output;
  small?: Output;
  meta: MediaMeta;
  blurhash: string | null;
}

/** Files processed at once: one core stays with the event loop (and at most 4 run at once). */
export function defaultMediaConcurrency(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}

export function createMediaPipeline(options: MediaPipelineOptions): MediaPipeline {
  const { storage } = options;
  const limits = options.limits ?? MASTODON_MEDIA_LIMITS;
  const tmpDir = options.tmpDir ?? tmpdir();
  // One libvips thread per image (a process-wide setting): images run in parallel only as far as
  // `slots` lets them, so they never take every libuv and CPU thread from the event loop.
  sharp.concurrency(1);
  const slots = new Semaphore(Math.max(1, options.concurrency ?? defaultMediaConcurrency()));
  let tools: Promise<FfmpegTools | null> | undefined;
  // A miss is not remembered: ffmpeg installed later, or slow to answer its first `-version` on a
  // loaded machine, is found by the next upload instead of never.
  const ffmpeg = () =>
    (tools ??= locateFfmpeg(options.ffmpegPath).then((found) => {
      if (!found) tools = undefined;
      return found;
    }));

  function byteLimit(kind: UploadPurpose, family?: Sniffed['family']): number {
    if (kind === 'avatar') return limits.avatarBytes;
    if (kind === 'banner' || kind === 'header') return limits.bannerBytes;
    if (family === 'image') return limits.imageBytes;
    if (family === undefined) return Math.max(limits.imageBytes, limits.videoBytes);
    return limits.videoBytes;
  }

  async function processIn(
    work: string,
    kind: UploadPurpose,
    sniffed: Sniffed,
    file: string,
  ): Promise<Processed> {
    const at = (name: string) => path.join(work, name);
    const found = await ffmpeg();
    if (sniffed.family === 'image') {
      const metadata = await assertImageMatrix(file, limits);
      if (sniffed.mime === 'image/gif' && (metadata.pages ?? 1) > 1 && found && kind === 'attachment') {
        return videoOf(found, { file, mime: sniffed.mime, probe: { formatName: 'gif' } }, 'gifv');
      }
      const original = await writeOriginal(file, sniffed.mime, at('original'), limits);
      const small = await writeSmall(file, at('small'), limits, metadata.hasAlpha ?? false);
      return {
        type: 'image',
        original,
        small,
        meta: {
          original: dimensions(original.width, original.height),
          small: dimensions(small.width, small.height),
        },
        blurhash: await blurhashOf(file, limits),
      };
    }
    const upload = found ? await probeUpload(found, file) : undefined;
    if (sniffed.family === 'video' && found && upload?.video) {
      assertVideoLimits(upload.video, limits);
      return videoOf(found, { file, mime: sniffed.mime, probe: upload }, 'video');
    }
    // Video without ffmpeg cannot be checked or cleaned: refused. A video container with only sound is audio.
    if (sniffed.family === 'video' && (!upload || !upload.audio)) throw unsupported();
    const contentType =
      sniffed.family === 'video' ? 'audio/mp4' : (AUDIO_TYPES[sniffed.mime] ?? sniffed.mime);
    const { size } = await stat(file);
    const meta: MediaMeta = {};
    if (upload?.duration !== undefined) {
      meta.duration = upload.duration;
      meta.original = { duration: upload.duration, ...(upload.bitrate ? { bitrate: upload.bitrate } : {}) };
    }
    return { type: 'audio', original: { file, contentType, size }, meta, blurhash: null };

    async function videoOf(
      found: FfmpegTools,
      input: Parameters<typeof processVideo>[1],
      type: 'gifv' | 'video',
    ): Promise<Processed> {
      const video = await processVideo(
        found,
        input,
        { video: at('video.mp4'), poster: at('poster.png') },
        limits,
      );
      const { width, height, frameRate, fps } = video.probe.video;
      const small = await writeSmall(video.poster, at('small'), limits, false);
      const { size } = await stat(video.file);
      const meta: MediaMeta = {
        original: {
          ...dimensions(width, height),
          ...(frameRate ? { frame_rate: frameRate } : {}),
          ...(video.probe.duration !== undefined ? { duration: video.probe.duration } : {}),
          ...(video.probe.bitrate !== undefined ? { bitrate: video.probe.bitrate } : {}),
        },
        small: dimensions(small.width, small.height),
        audio: video.probe.audio !== undefined,
      };
      if (video.probe.duration !== undefined) meta.duration = video.probe.duration;
      if (fps !== undefined) meta.fps = fps;
      return {
        type,
        original: { file: video.file, contentType: 'video/mp4', size, width, height },
        small,
        meta,
        blurhash: await blurhashOf(video.poster, limits),
      };
    }
  }

  async function processOne({ kind = 'attachment', input, focus }: ProcessRequest): Promise<ProcessedMedia> {
    if (focus !== undefined) assertFocus(focus);
    const shortcode = newShortcode();
    const work = await mkdtemp(path.join(tmpDir, 'agora-media-'));
    const stored: string[] = [];
    try {
      const spooled = await spool(input, path.join(work, 'upload'), byteLimit(kind));
      const sniffed = await sniff(spooled.file);
      if (kind !== 'attachment' && sniffed.family !== 'image') throw unsupported();
      const limit = byteLimit(kind, sniffed.family);
      if (spooled.size > limit) {
        throw new MediaTooLarge(`The file is too large: the limit is ${limit} bytes`, limit, 'bytes');
      }
      const processed = await processIn(work, kind, sniffed, spooled.file);
      if (focus !== undefined) processed.meta.focus = focus;

      const put = async (name: string, output: Output): Promise<StoredFile> => {
        const key = `${FOLDERS[kind]}/${shortcode}/${name}.${extensionFor(output.contentType)}`;
        stored.push(key);
        await storage.put(key, { file: output.file }, output.contentType);
        const file: StoredFile = {
          key,
          url: storage.url(key),
          contentType: output.contentType,
          size: output.size,
        };
        if (output.width !== undefined) file.width = output.width;
        if (output.height !== undefined) file.height = output.height;
        return file;
      };
      const original = await put('original', processed.original);
      const files: ProcessedMedia['files'] = { original };
      if (processed.small) files.small = await put('small', processed.small);
      return {
        shortcode,
        type: processed.type,
        contentType: original.contentType,
        size: original.size,
        sha256: spooled.sha256,
        files,
        meta: processed.meta,
        blurhash: processed.blurhash,
      };
    } catch (error) {
      // Whatever reached storage before the failure goes again.
      await Promise.allSettled(stored.map((key) => storage.delete(key)));
      throw error;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  return {
    process: (request) => slots.run(() => processOne(request)),

    async remove(media) {
      const keys = Array.isArray(media)
        ? (media as readonly string[])
        : Object.values((media as ProcessedMedia).files).map((file) => file.key);
      await Promise.all(keys.map((key) => storage.delete(key)));
    },

    async supportedMimeTypes() {
      const found = await ffmpeg();
      return SUPPORTED_MIME_TYPES.filter((type) => found !== null || !type.startsWith('video/'));
    },
  };
}

function assertFocus(focus: { x: number; y: number }): void {
  const ok = [focus.x, focus.y].every((value) => Number.isFinite(value) && value >= -1 && value <= 1);
  if (!ok)
    throw new BadInput('Invalid focal point', { fields: { focus: ['x and y must be between -1 and 1'] } });
}
