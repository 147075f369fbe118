import { once } from 'node:events';
import http from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import sharp from 'sharp';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { MASTODON_MEDIA_LIMITS } from '../limits/media-limits.js';
import { createMediaPipeline } from '../pipeline/media-pipeline.js';
import { createDiskStorage } from '../storage/disk-storage.js';
import { serveMedia } from '../storage/serve-media.handler.js';
import { mediaMigrationSet } from '../migrations/index.js';
import { RemoteMediaCache, type RemoteMediaCacheOptions } from './remote-media.cache.js';
import type { RemoteFetch } from './remote-media.types.js';

/** A plain capped GET (the apps pass the guarded client; this package cannot import it). */
const plainFetch: RemoteFetch = (url, { maxBodyBytes }) =>
  new Promise((resolve, reject) => {
    const request = http.get(url, (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBodyBytes) {
          request.destroy();
          reject(Object.assign(new Error('too large'), { code: 'too_large' }));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: {}, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
  });

/** Files (not folders) stored under a folder. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('remote media cache', () => {
  const database = withTestDatabase('media_remote', { family: 'media', sets: () => [mediaMigrationSet()] });
  let sequelize: Sequelize;
  let base: string;
  let root: string;
  let origin: http.Server;
  let originUrl: string;
  let local: http.Server;
  let localUrl: string;
  /** What the origin answers per path, and how often each path was asked for. */
  const routes = new Map<string, { type: string; body: Buffer }>();
  const hits = new Map<string, number>();
  let clock: Date;
  let png: Buffer;

  const cacheWith = (options: Partial<RemoteMediaCacheOptions> = {}) => {
    const storage = createDiskStorage({ root, baseUrl: `${localUrl}/system` });
    return new RemoteMediaCache({
      sequelize,
      storage,
      pipeline: createMediaPipeline({ storage, tmpDir: base }),
      fetch: plainFetch,
      now: () => clock,
      ...options,
    });
  };

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [mediaMigrationSet()]);
    base = await mkdtemp(path.join(tmpdir(), 'agora-remote-media-'));
    root = path.join(base, 'media');
    origin = http.createServer((req, res) => {
      const url = req.url ?? '/';
      hits.set(url, (hits.get(url) ?? 0) + 1);
      const route = routes.get(url);
      if (!route) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': route.type }).end(route.body);
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const app = express();
    app.use('/system', serveMedia(createDiskStorage({ root, baseUrl: 'http://unused' })));
    local = app.listen(0, '127.0.0.1');
    await once(local, 'listening');
    localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03' } })
      .png()
      .withExif({ IFD0: { Copyright: 'agora-secret-exif' } })
      .toBuffer();
    expect((await sharp(png).metadata()).exif?.toString('latin1')).to.include('agora-secret-exif');
  });

  beforeEach(async () => {
    routes.clear();
    hits.clear();
    clock = new Date('2026-11-24T12:00:00Z');
    await sequelize.query('TRUNCATE remote_media_files');
    await rm(root, { recursive: true, force: true });
  });

  after(async () => {
    origin.close();
    local.close();
    await sequelize.close();
    await rm(base, { recursive: true, force: true });
  });

  it('fetches a PNG avatar once, stores it without EXIF and serves it locally', async () => {
    routes.set('/avatar.png', { type: 'image/png', body: png });
    const cache = cacheWith();
    const first = await cache.cache(`${originUrl}/avatar.png`, 'avatar');

    expect(first).to.include({ kind: 'avatar', contentType: 'image/png', error: null });
    expect(first.localUrl).to.match(
      new RegExp(`^${localUrl}/system/avatars/[A-Za-z0-9_-]{19}/original\\.png$`),
    );
    const served = await fetch(first.localUrl!);
    expect(served.status).to.equal(200);
    expect(served.headers.get('content-type')).to.equal('image/png');
    const bytes = Buffer.from(await served.arrayBuffer());
    const metadata = await sharp(bytes).metadata();
    expect([metadata.format, metadata.width, metadata.height]).to.deep.equal(['png', 64, 48]);
    expect(metadata.exif).to.equal(undefined);
    expect(bytes.includes('agora-secret-exif')).to.equal(false);

    const again = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(again.localUrl).to.equal(first.localUrl);
    expect(hits.get('/avatar.png')).to.equal(1);
    expect((await cache.find(`${originUrl}/avatar.png`))?.localUrl).to.equal(first.localUrl);
  });

  it('fetches once for concurrent requests of the same URL', async () => {
    routes.set('/shared.png', { type: 'image/png', body: png });
    const cache = cacheWith();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => cache.cache(`${originUrl}/shared.png`, 'header')),
    );
    expect(new Set(results.map((result) => result.localUrl)).size).to.equal(1);
    expect(results[0]!.localUrl).to.be.a('string');
    expect(hits.get('/shared.png')).to.equal(1);
    expect(await filesUnder(root)).to.have.length(2); // original and preview
  });

  it('refuses an HTML body (whatever its claimed type), stores nothing and remembers the failure', async () => {
    routes.set('/avatar.png', { type: 'image/png', body: Buffer.from('<!doctype html><h1>hi</h1>') });
    const cache = cacheWith({ failureTtlMs: 60_000 });
    const result = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(result).to.include({ localUrl: null, error: 'unsupported_media_type' });
    expect(await filesUnder(root)).to.deep.equal([]);

    // No refetch storm: the failure is served from the table until its TTL is over.
    await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(hits.get('/avatar.png')).to.equal(1);
    routes.set('/avatar.png', { type: 'image/png', body: png });
    clock = new Date(clock.getTime() + 61_000);
    const retried = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(hits.get('/avatar.png')).to.equal(2);
    expect(retried).to.include({ error: null, failedAt: null });
    expect(retried.localUrl).to.be.a('string');
  });

  it('cuts an oversize body at the kind’s cap and stores nothing', async () => {
    const big = Buffer.concat([png, Buffer.alloc(50_000)]);
    routes.set('/huge.png', { type: 'image/png', body: big });
    const cache = cacheWith({ limits: { ...MASTODON_MEDIA_LIMITS, avatarBytes: 10_000 } });
    expect(cache.maxBytes('avatar')).to.equal(10_000);
    const result = await cache.cache(`${originUrl}/huge.png`, 'avatar');
    expect(result).to.include({ localUrl: null, error: 'too_large' });
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('caps avatars at 2 MiB and attachments at the pipeline’s file limits by default', () => {
    const cache = cacheWith();
    expect(cache.maxBytes('avatar')).to.equal(2 * 1024 * 1024);
    expect(cache.maxBytes('attachment')).to.equal(MASTODON_MEDIA_LIMITS.videoBytes);
  });

  it('never contacts a host whose media is rejected, and drops a copy made before the block', async () => {
    routes.set('/avatar.png', { type: 'image/png', body: png });
    let blocked = false;
    const cache = cacheWith({ rejectsMedia: (host) => blocked && host === '127.0.0.1' });
    const before = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(before.localUrl).to.be.a('string');

    blocked = true;
    routes.set('/other.png', { type: 'image/png', body: png });
    const refused = await cache.cache(`${originUrl}/other.png`, 'avatar');
    expect(refused).to.include({ localUrl: null, error: 'media_rejected' });
    expect(hits.get('/other.png')).to.equal(undefined);

    const dropped = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(dropped).to.include({ localUrl: null, error: 'media_rejected' });
    expect(hits.get('/avatar.png')).to.equal(1);
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('fetches again after the TTL and removes the copy it replaces', async () => {
    routes.set('/avatar.png', { type: 'image/png', body: png });
    const cache = cacheWith({ ttlMs: 60_000 });
    const first = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    clock = new Date(clock.getTime() + 30_000);
    await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(hits.get('/avatar.png')).to.equal(1);

    clock = new Date(clock.getTime() + 31_000);
    const second = await cache.cache(`${originUrl}/avatar.png`, 'avatar');
    expect(hits.get('/avatar.png')).to.equal(2);
    expect(second.localUrl).to.not.equal(first.localUrl);
    expect((await fetch(first.localUrl!)).status).to.equal(404);
    expect((await fetch(second.localUrl!)).status).to.equal(200);
  });

  it('records a 404 as a failure and refuses a URL that is not http(s)', async () => {
    const cache = cacheWith();
    expect(await cache.cache(`${originUrl}/gone.png`, 'avatar')).to.include({
      localUrl: null,
      error: 'http_404',
    });
    let refused: unknown;
    await cache.cache('file:///etc/passwd', 'avatar').catch((error: unknown) => (refused = error));
    expect((refused as Error | undefined)?.name).to.equal('BadInput');
  });
});
