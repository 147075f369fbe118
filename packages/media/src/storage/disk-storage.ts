import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotFound } from '@agora/core';
import {
  assertSafeKey,
  contentTypeFromKey,
  type ByteRange,
  type MediaStorage,
  type PutBody,
  type StoredObjectInfo,
} from './storage.port.js';

export interface DiskStorageOptions {
  /** The folder files are kept in (e.g. `<data folder>/media`). */
  root: string;
  /** Public URL prefix the files are served under, e.g. `https://host/media`. */
  baseUrl: string;
}

// Partial writes live beside the files (same file system, so the final rename is atomic).
const PARTIAL_DIR = '.partial';

/** Files on local disk: written to a partial file, renamed into place only once complete. */
export function createDiskStorage({ root, baseUrl }: DiskStorageOptions): MediaStorage {
  const prefix = baseUrl.replace(/\/+$/, '');
  const resolve = (key: string): string => {
    assertSafeKey(key);
    return path.join(root, ...key.split('/'));
  };

  return {
    async put(key: string, body: PutBody, _contentType: string): Promise<void> {
      const target = resolve(key);
      const partialDir = path.join(root, PARTIAL_DIR);
      await mkdir(partialDir, { recursive: true });
      const partial = path.join(partialDir, randomBytes(12).toString('hex'));
      try {
        if (Buffer.isBuffer(body)) await writeFile(partial, body, { flag: 'wx' });
        else if (body instanceof Readable) await pipeline(body, createWriteStream(partial, { flags: 'wx' }));
        else await copyFile(body.file, partial);
        await mkdir(path.dirname(target), { recursive: true });
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },

    async head(key: string): Promise<StoredObjectInfo | null> {
      const file = resolve(key);
      try {
        const info = await stat(file);
        if (!info.isFile()) return null;
        return {
          size: info.size,
          contentType: contentTypeFromKey(key),
          etag: `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`,
          lastModified: info.mtime,
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const file = resolve(key);
      const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
      // Surface a missing file as NotFound before the caller starts answering.
      await new Promise<void>((ready, fail) => {
        stream.once('open', () => ready());
        stream.once('error', (error: NodeJS.ErrnoException) =>
          fail(error.code === 'ENOENT' ? new NotFound('Media not found') : error),
        );
      });
      return stream;
    },

    async delete(key: string): Promise<void> {
      const file = resolve(key);
      await rm(file, { force: true });
      // Drop the now-empty per-attachment folder; a non-empty one stays.
      await rmdir(path.dirname(file)).catch(() => undefined);
    },

    url(key: string): string {
      assertSafeKey(key);
      return `${prefix}/${key}`;
    },
  };
}
