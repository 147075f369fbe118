import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import { NotFound } from '@agora/core';
import { createS3Storage } from './s3-storage.js';
import type { MediaStorage } from './storage.port.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

// Not an S3 server: it records what the adapter sends and answers the few shapes it reads back.
describe('S3 storage (request shapes only, no real S3 here)', () => {
  let server: Server;
  let storage: MediaStorage;
  const seen: Seen[] = [];
  const objects = new Map<string, { body: string; type: string }>();

  before(async () => {
    server = createServer((req, res) => {
      void text(req).then((body) => {
        const url = req.url ?? '';
        seen.push({ method: req.method ?? '', url, headers: req.headers, body });
        const path = url.split('?')[0]!;
        const object = objects.get(path);
        if (req.method === 'PUT') {
          objects.set(path, { body, type: String(req.headers['content-type']) });
          res.writeHead(200, { ETag: '"abc"' }).end();
        } else if (req.method === 'DELETE') {
          objects.delete(path);
          res.writeHead(204).end();
        } else if (!object) {
          res.writeHead(404, { 'Content-Type': 'application/xml' });
          res.end(req.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code></Error>');
        } else if (req.method === 'HEAD') {
          res.writeHead(200, {
            'Content-Length': object.body.length,
            'Content-Type': object.type,
            ETag: '"abc"',
          });
          res.end();
        } else {
          const [, start = '0', end = String(object.body.length - 1)] =
            /bytes=(\d+)-(\d+)/.exec(String(req.headers.range)) ?? [];
          const slice = object.body.slice(Number(start), Number(end) + 1);
          res.writeHead(req.headers.range ? 206 : 200, { 'Content-Type': object.type });
          res.end(slice);
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    storage = createS3Storage({
      bucket: 'agora',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      forcePathStyle: true,
      accessKeyId: 'test',
      secretAccessKey: 'test-secret',
      prefix: 'instance-a',
      publicUrl: 'https://cdn.example',
    });
  });

  after(() => {
    server.close();
  });

  it('puts, reads a range of, and deletes an object under the prefix with cache headers', async () => {
    const key = 'media_attachments/AbCdEfGhIjKlMnOpQ_-/original.png';
    await storage.put(key, Buffer.from('0123456789'), 'image/png');
    const put = seen.find((request) => request.method === 'PUT')!;
    expect(put.url.split('?')[0]).to.equal(`/agora/instance-a/${key}`);
    expect(put.headers['content-type']).to.equal('image/png');
    expect(put.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(put.headers.authorization).to.match(/^AWS4-HMAC-SHA256 /);
    expect(put.body).to.equal('0123456789');

    expect(await storage.head(key)).to.include({ size: 10, contentType: 'image/png' });
    expect(await text(await storage.get(key, { start: 2, end: 4 }))).to.equal('234');
    expect(storage.url(key)).to.equal(`https://cdn.example/instance-a/${key}`);

    await storage.delete(key);
    expect(await storage.head(key)).to.equal(null);
    let error: unknown;
    await storage.get(key).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(NotFound);
  });
});
