import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import { NotFound } from '@agora/core';
import type { S3StorageConfig, S3Credentials } from './s3-storage.config.js';
import {
  assertSafeKey,
  type ByteRange,
  type MediaStorage,
  type PutBody,
  type StoredObjectInfo,
} from './storage.port.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, Garage, R2…); AWS when absent. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle?: boolean;
  /** Access keys; without them the SDK looks for credentials itself. */
  credentials?: S3Credentials;
  /** Prepended to every object key, so one bucket can serve several instances. */
  prefix?: string;
  /**
   * Where clients fetch the files. `app`: the URL where the app mounts `serveMedia`, which streams
   * them from the bucket (which may stay private); the storage key follows it, so URLs do not change
   * with the storage. `bucket`: a public host in front of the bucket (S3_ALIAS_HOST, a CDN); the
   * object key, prefix included, follows it.
   */
  publicUrl: { app: string } | { bucket: string };
  /** A ready client (custom credentials providers). */
  client?: S3Sdk.S3Client;
}

const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The adapter options of a service's S3 settings; `appUrl` is where the service mounts `serveMedia`. */
export function s3StorageOptions(config: S3StorageConfig, appUrl: string): S3StorageOptions {
  return {
    bucket: config.bucket,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    publicUrl: config.aliasUrl ? { bucket: config.aliasUrl } : { app: appUrl },
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.prefix ? { prefix: config.prefix } : {}),
  };
}

type Sdk = typeof S3Sdk;

// Loaded on first use: a service on disk storage never pays for the SDK at boot.
let sdkLoading: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= import('@aws-sdk/client-s3');
  return sdkLoading;
}

function isMissing({ S3ServiceException }: Sdk, error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound')
  );
}

/** Files in an S3-compatible bucket, uploaded with long-lived cache headers; `serveMedia` streams them. */
export function createS3Storage(options: S3StorageOptions): MediaStorage {
  let clientLoading: Promise<{ sdk: Sdk; client: S3Sdk.S3Client }> | undefined;
  const connect = () =>
    (clientLoading ??= loadSdk().then((loaded) => ({
      sdk: loaded,
      client:
        options.client ??
        new loaded.S3Client({
          region: options.region,
          forcePathStyle: options.forcePathStyle ?? false,
          // Checksums only where S3 demands them: several S3-compatible servers refuse the newer trailers.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
          ...(options.endpoint ? { endpoint: options.endpoint } : {}),
          ...(options.credentials
            ? {
                credentials: {
                  accessKeyId: options.credentials.accessKeyId,
                  secretAccessKey: options.credentials.secretAccessKey,
                },
              }
            : {}),
        }),
    })));
  const { bucket } = options;
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
  const objectKey = (key: string) => {
    assertSafeKey(key);
    return `${prefix}${key}`;
  };
  const { publicUrl } = options;
  const urlOf =
    'bucket' in publicUrl
      ? (key: string) => `${publicUrl.bucket.replace(/\/+$/, '')}/${objectKey(key)}`
      : (key: string) => {
          assertSafeKey(key);
          return `${publicUrl.app.replace(/\/+$/, '')}/${key}`;
        };

  async function bodyOf(body: PutBody): Promise<{ Body: Buffer | Readable; ContentLength: number }> {
    if (Buffer.isBuffer(body)) return { Body: body, ContentLength: body.length };
    if (body instanceof Readable) {
      // S3 needs the length up front; the pipeline only hands over files, so buffering here is rare.
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
      const buffer = Buffer.concat(chunks);
      return { Body: buffer, ContentLength: buffer.length };
    }
    const { size } = await stat(body.file);
    return { Body: createReadStream(body.file), ContentLength: size };
  }

  return {
    async put(key, body, contentType) {
      const Key = objectKey(key);
      const { sdk, client } = await connect();
      const payload = await bodyOf(body);
      try {
        await client.send(
          new sdk.PutObjectCommand({
            Bucket: bucket,
            Key,
            ...payload,
            ContentType: contentType,
            CacheControl: CACHE_CONTROL,
          }),
        );
      } finally {
        // A refused upload leaves its file stream unread: close it rather than leak the descriptor.
        if (payload.Body instanceof Readable) payload.Body.destroy();
      }
    },

    async head(key): Promise<StoredObjectInfo | null> {
      const Key = objectKey(key);
      const { sdk, client } = await connect();
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key }));
        const info: StoredObjectInfo = {
          size: head.ContentLength ?? 0,
          contentType: head.ContentType ?? 'application/octet-stream',
        };
        if (head.ETag) info.etag = head.ETag;
        if (head.LastModified) info.lastModified = head.LastModified;
        return info;
      } catch (error) {
        if (isMissing(sdk, error)) return null;
        throw error;
      }
    },

    async get(key, range?: ByteRange) {
      const Key = objectKey(key);
      const { sdk, client } = await connect();
      try {
        const object = await client.send(
          new sdk.GetObjectCommand({
            Bucket: bucket,
            Key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        if (!(object.Body instanceof Readable)) throw new Error('S3 returned no stream');
        return object.Body;
      } catch (error) {
        if (isMissing(sdk, error)) throw new NotFound('Media not found');
        throw error;
      }
    },

    async delete(key) {
      const Key = objectKey(key);
      const { sdk, client } = await connect();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key }));
    },

    url: urlOf,
  };
}
