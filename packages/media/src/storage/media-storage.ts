import { createDiskStorage } from './disk-storage.js';
import type { S3StorageConfig } from './s3-storage.config.js';
import { createS3Storage, s3StorageOptions } from './s3-storage.js';
import type { MediaStorage } from './storage.port.js';

export interface MediaStorageOptions {
  /** The folder files are kept in when they stay on disk. */
  dir: string;
  /** The service's S3 settings (`config.media.s3`); null keeps the files on disk. */
  s3: S3StorageConfig | null;
  /** Where the service mounts `serveMedia` (`https://host/media`): the files' URLs, unless S3 has an alias. */
  baseUrl: string;
}

/** The storage a service's configuration asks for: disk by default, an S3 bucket when enabled. */
export function createMediaStorage({ dir, s3, baseUrl }: MediaStorageOptions): MediaStorage {
  return s3 ? createS3Storage(s3StorageOptions(s3, baseUrl)) : createDiskStorage({ root: dir, baseUrl });
}
