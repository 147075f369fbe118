import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Credentials } from '../storage/s3-storage.config.js';

/** A real S3-compatible server (s3rver) on loopback, its objects in a temporary folder. */
export interface S3TestServer {
  /** `http://127.0.0.1:<port>`: the endpoint, path-style (`endpoint/bucket/key`). */
  endpoint: string;
  bucket: string;
  /** The only keys s3rver knows (it checks the key id; it does not verify SigV4 signatures). */
  credentials: S3Credentials;
  /** The variables that point a service's media at this bucket (merge into its env). */
  env: Record<string, string>;
  /** The keys of the objects in the bucket, sorted. */
  keys(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startS3TestServer({ bucket = 'agora-media' } = {}): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(tmpdir(), 'agora-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  return {
    endpoint,
    bucket,
    credentials,
    env: {
      S3_ENABLED: 'true',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async keys() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
    },
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
