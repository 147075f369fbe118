import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { expect } from 'chai';
import express from 'express';
import { NotFound } from '@agora/core';
import { startS3TestServer, type S3TestServer } from '../testing/s3-server.js';
import { createS3Storage, type S3StorageOptions } from './s3-storage.js';
import { serveMedia } from './serve-media.handler.js';
import type { MediaStorage } from './storage.port.js';

const KEY = 'media_attachments/AbCdEfGhIjKlMnOpQ_-/original.png';
const CACHE_CONTROL = 'public, max-age=31536000, immutable';
const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('S3 storage against a real S3-compatible server (s3rver on loopback)', () => {
  let s3: S3TestServer;
  let work: string;

  const storageFor = (extra: Partial<S3StorageOptions> = {}): MediaStorage =>
    createS3Storage({
      bucket: s3.bucket,
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
      publicUrl: { app: 'https://agora.example/media' },
      ...extra,
    });

  before(async () => {
    s3 = await startS3TestServer();
    work = await mkdtemp(path.join(tmpdir(), 'agora-s3-storage-test-'));
  });
  after(async () => {
    await s3?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('puts an object, reads it whole and in part, describes it, deletes it, then finds nothing', async () => {
    const storage = storageFor({ prefix: 'instance-a' });
    await storage.put(KEY, bytes, 'image/png');
    expect(await s3.keys()).to.deep.equal([`instance-a/${KEY}`]);

    expect((await buffer(await storage.get(KEY))).equals(bytes)).to.equal(true);
    expect(
      (await buffer(await storage.get(KEY, { start: 100, end: 199 }))).equals(bytes.subarray(100, 200)),
    ).to.equal(true);
    const info = await storage.head(KEY);
    expect(info).to.include({ size: 1000, contentType: 'image/png' });
    expect(info?.etag).to.match(/^".+"$/);
    expect(info?.lastModified).to.be.instanceOf(Date);

    await storage.delete(KEY);
    expect(await s3.keys()).to.deep.equal([]);
    expect(await storage.head(KEY)).to.equal(null);
    expect(await rejection(storage.get(KEY))).to.be.instanceOf(NotFound);
    // Deleting twice is fine (deletes are retried).
    await storage.delete(KEY);
  });

  it('stores a finished file and a stream as well as bytes', async () => {
    const storage = storageFor();
    const file = path.join(work, 'upload.bin');
    await writeFile(file, bytes);
    await storage.put('attachments/fromfile/original.mp4', { file }, 'video/mp4');
    await storage.put('attachments/fromstream/original.webp', Readable.from([bytes, bytes]), 'image/webp');

    expect(await storage.head('attachments/fromfile/original.mp4')).to.include({
      size: 1000,
      contentType: 'video/mp4',
    });
    expect(await storage.head('attachments/fromstream/original.webp')).to.include({
      size: 2000,
      contentType: 'image/webp',
    });
    await storage.delete('attachments/fromfile/original.mp4');
    await storage.delete('attachments/fromstream/original.webp');
  });

  it('refuses keys that could escape, sending nothing', async () => {
    const storage = storageFor();
    for (const bad of ['../escape.png', '/etc/passwd', 'a/../../b.png', 'a/b c.png', '']) {
      expect(await rejection(storage.put(bad, bytes, 'image/png')), bad).to.have.property('name', 'BadInput');
      expect(() => storage.url(bad), bad).to.throw();
    }
    expect(await s3.keys()).to.deep.equal([]);
  });

  it('links files through the app by default, or to the alias host, which serves them itself', async () => {
    expect(storageFor({ prefix: 'instance-a' }).url(KEY)).to.equal(`https://agora.example/media/${KEY}`);

    // An alias host in front of the bucket: here s3rver's own path-style URL, which answers anonymous reads.
    const aliased = storageFor({
      prefix: 'instance-a',
      publicUrl: { bucket: `${s3.endpoint}/${s3.bucket}` },
    });
    await aliased.put(KEY, bytes, 'image/png');
    const url = aliased.url(KEY);
    expect(url).to.equal(`${s3.endpoint}/${s3.bucket}/instance-a/${KEY}`);
    const whole = await fetch(url);
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('image/png');
    expect(whole.headers.get('cache-control')).to.equal(CACHE_CONTROL);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).to.equal(true);
    const part = await fetch(url, { headers: { Range: 'bytes=0-9' } });
    expect(part.status).to.equal(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 10))).to.equal(true);
    await aliased.delete(KEY);
  });

  describe('streamed by serveMedia', () => {
    let server: Server;
    let base: string;
    let storage: MediaStorage;

    before(async () => {
      storage = storageFor({ prefix: 'instance-b' });
      await storage.put(KEY, bytes, 'image/png');
      const app = express();
      app.use('/media', serveMedia(storage));
      app.use((_req, res) => {
        res.status(404).json({ error: 'Not found' });
      });
      server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/media`;
    });
    after(async () => {
      server?.close();
      await storage?.delete(KEY);
    });

    it('answers with the type, length, cache policy and validators the bucket keeps', async () => {
      const response = await fetch(`${base}/${KEY}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('image/png');
      expect(response.headers.get('content-length')).to.equal('1000');
      expect(response.headers.get('cache-control')).to.equal(CACHE_CONTROL);
      expect(response.headers.get('accept-ranges')).to.equal('bytes');
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).to.equal(true);

      const revalidated = await fetch(`${base}/${KEY}`, {
        headers: { 'If-None-Match': response.headers.get('etag')! },
      });
      expect(revalidated.status).to.equal(304);
    });

    it('answers byte ranges with 206 and a range past the end with 416', async () => {
      const response = await fetch(`${base}/${KEY}`, { headers: { Range: 'bytes=100-199' } });
      expect(response.status).to.equal(206);
      expect(response.headers.get('content-range')).to.equal('bytes 100-199/1000');
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(100, 200))).to.equal(true);

      const suffix = await fetch(`${base}/${KEY}`, { headers: { Range: 'bytes=-10' } });
      expect(suffix.headers.get('content-range')).to.equal('bytes 990-999/1000');
      expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(990))).to.equal(true);

      const past = await fetch(`${base}/${KEY}`, { headers: { Range: 'bytes=5000-' } });
      expect(past.status).to.equal(416);
      expect(past.headers.get('content-range')).to.equal('bytes */1000');
    });

    it('leaves a missing object to the app’s 404', async () => {
      const response = await fetch(`${base}/media_attachments/nothing/original.png`);
      expect(response.status).to.equal(404);
      expect(await response.json()).to.deep.equal({ error: 'Not found' });
    });
  });
});
