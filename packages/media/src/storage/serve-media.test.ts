import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { BadInput } from '@agora/core';
import { createDiskStorage } from './disk-storage.js';
import { serveMedia } from './serve-media.handler.js';
import type { MediaStorage } from './storage.port.js';

describe('disk storage served over HTTP', () => {
  let root: string;
  let storage: MediaStorage;
  let server: ReturnType<express.Express['listen']>;
  let base: string;
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
  const key = 'media_attachments/AbCdEfGhIjKlMnOpQ_-/original.png';

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'agora-serve-test-'));
    storage = createDiskStorage({ root: path.join(root, 'media'), baseUrl: 'http://unused/media' });
    await storage.put(key, bytes, 'image/png');
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
    server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves a file with its type, length and a long-lived cache policy', async () => {
    const response = await fetch(`${base}/${key}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('image/png');
    expect(response.headers.get('content-length')).to.equal('1000');
    expect(response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(response.headers.get('accept-ranges')).to.equal('bytes');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).to.equal(true);

    const revalidated = await fetch(`${base}/${key}`, {
      headers: { 'If-None-Match': response.headers.get('etag')! },
    });
    expect(revalidated.status).to.equal(304);
  });

  it('answers a byte range with 206 and exactly those bytes', async () => {
    const response = await fetch(`${base}/${key}`, { headers: { Range: 'bytes=100-199' } });
    expect(response.status).to.equal(206);
    expect(response.headers.get('content-range')).to.equal('bytes 100-199/1000');
    expect(response.headers.get('content-length')).to.equal('100');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(100, 200))).to.equal(true);

    const suffix = await fetch(`${base}/${key}`, { headers: { Range: 'bytes=-10' } });
    expect(suffix.headers.get('content-range')).to.equal('bytes 990-999/1000');
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(990))).to.equal(true);
  });

  it('answers 416 for a range past the end', async () => {
    const response = await fetch(`${base}/${key}`, { headers: { Range: 'bytes=5000-' } });
    expect(response.status).to.equal(416);
    expect(response.headers.get('content-range')).to.equal('bytes */1000');
  });

  it('leaves missing files and escaping paths to the app’s 404', async () => {
    for (const url of [
      `${base}/media_attachments/nothing/original.png`,
      `${base}/..%2F..%2Fetc%2Fpasswd`,
      `${base}/%2e%2e/%2e%2e/package.json`,
      `${base}/media_attachments/AbCdEfGhIjKlMnOpQ_-/..%2F..%2F..%2Fpackage.json`,
    ]) {
      const response = await fetch(url);
      expect(response.status, url).to.equal(404);
      expect(await response.json()).to.deep.equal({ error: 'Not found' });
    }
  });

  it('refuses keys that could escape its folder, writing nothing', async () => {
    for (const bad of ['../escape.png', '/etc/passwd', 'a/../../b.png', 'a\\..\\b.png', 'a/b c.png', '']) {
      let error: unknown;
      try {
        await storage.put(bad, bytes, 'image/png');
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).to.be.instanceOf(BadInput);
    }
    expect(await readdir(root)).to.deep.equal(['media']);
    await storage.delete(key);
    expect(await storage.head(key)).to.equal(null);
    // Deleting twice is fine (deletes are retried).
    await storage.delete(key);
  });
});
