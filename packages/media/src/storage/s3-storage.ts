import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { envBoolean, NotFound } from '@agora/core';
import { z } from 'zod';
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
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Where the files are public (bucket website or CDN); the endpoint's own URL when absent. */
  publicUrl?: string;
  /** Prepended to every key, so one bucket can serve several instances. */
  prefix?: string;
  /** A ready client (tests, custom credentials providers). */
  client?: S3Client;
}

const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The zod shape of the S3 variables; all optional, storage stays on disk without `S3_BUCKET`. */
export function s3StorageEnv() {
  return {
    S3_BUCKET: z.string().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ENDPOINT: z.url().optional(),
    S3_FORCE_PATH_STYLE: envBoolean(false),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    S3_PUBLIC_URL: z.url().optional(),
    S3_PREFIX: z.string().optional(),
  };
}

type S3Env = z.output<z.ZodObject<ReturnType<typeof s3StorageEnv>>>;

/** The S3 options the environment asks for, or null for disk storage. */
export function toS3StorageOptions(env: S3Env): S3StorageOptions | null {
  if (!env.S3_BUCKET) return null;
  const options: S3StorageOptions = {
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
  };
  if (env.S3_ENDPOINT) options.endpoint = env.S3_ENDPOINT;
  if (env.S3_ACCESS_KEY_ID) options.accessKeyId = env.S3_ACCESS_KEY_ID;
  if (env.S3_SECRET_ACCESS_KEY) options.secretAccessKey = env.S3_SECRET_ACCESS_KEY;
  if (env.S3_PUBLIC_URL) options.publicUrl = env.S3_PUBLIC_URL;
  if (env.S3_PREFIX) options.prefix = env.S3_PREFIX;
  return options;
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound')
  );
}

/** Files in an S3-compatible bucket, uploaded with long-lived cache headers; `serveMedia` can stream them too. */
export function createS3Storage(options: S3StorageOptions): MediaStorage {
  const client =
    options.client ??
    new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle ?? false,
      // Checksums only where S3 demands them: several S3-compatible servers refuse the newer trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  const { bucket } = options;
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
  const objectKey = (key: string) => {
    assertSafeKey(key);
    return `${prefix}${key}`;
  };
  const publicBase = (
    options.publicUrl ??
    (options.endpoint
      ? `${options.endpoint.replace(/\/+$/, '')}/${bucket}`
      : `https://${bucket}.s3.${options.region}.amazonaws.com`)
  ).replace(/\/+$/, '');

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
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key,
          ...(await bodyOf(body)),
          ContentType: contentType,
          CacheControl: CACHE_CONTROL,
        }),
      );
    },

    async head(key): Promise<StoredObjectInfo | null> {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        const info: StoredObjectInfo = {
          size: head.ContentLength ?? 0,
          contentType: head.ContentType ?? 'application/octet-stream',
        };
        if (head.ETag) info.etag = head.ETag;
        if (head.LastModified) info.lastModified = head.LastModified;
        return info;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async get(key, range?: ByteRange) {
      try {
        const object = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        if (!(object.Body instanceof Readable)) throw new Error('S3 returned no stream');
        return object.Body;
      } catch (error) {
        if (isMissing(error)) throw new NotFound('Media not found');
        throw error;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },

    url(key) {
      return `${publicBase}/${objectKey(key)}`;
    },
  };
}
