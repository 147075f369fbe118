import { readdir } from 'node:fs/promises';
import { expect } from 'chai';
import sharp from 'sharp';
import { ConfigError } from '@agora/core';
import { startS3TestServer, type S3TestServer } from '@agora/media/testing';
import { loadConfig } from '../../config/config.js';
import { registerApp, signedInAccount } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

const CACHE_CONTROL = 'public, max-age=31536000, immutable';

describe('media in an S3 bucket behind S3_ALIAS_HOST (a real S3-compatible server on loopback)', () => {
  let s3: S3TestServer;
  let t: TestServer;
  let alias: string;

  before(async () => {
    s3 = await startS3TestServer();
    // The alias host in front of the bucket is s3rver's own path-style URL, which answers anonymous reads.
    alias = `${s3.endpoint}/${s3.bucket}`;
    t = await startTestServer('media-s3', {
      env: {
        ...s3.env,
        S3_PREFIX: 'microblog',
        S3_PROTOCOL: 'http',
        S3_ALIAS_HOST: alias.replace(/^http:\/\//, ''),
      },
    });
  });
  after(async () => {
    await t?.stop();
    await s3?.stop();
  });

  it('refuses to boot with S3_ENABLED but no bucket or keys, naming each', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', S3_ENABLED: 'true', S3_BUCKET: 'media' }))
      .to.throw(ConfigError)
      .with.property('issues')
      .that.includes.members([
        'AWS_ACCESS_KEY_ID: is required when S3_ENABLED=true',
        'AWS_SECRET_ACCESS_KEY: is required when S3_ENABLED=true',
      ]);
  });

  it('stores a POST /api/v2/media image in the bucket and links it on the alias host', async () => {
    const app = await registerApp(t.url, 'S3 media test');
    const { token: accessToken } = await signedInAccount(t, app, 'alice');

    const form = new FormData();
    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#e05020' } })
      .png()
      .toBuffer();
    form.append('file', new Blob([png], { type: 'image/png' }), 'sunset.png');
    const response = await fetch(`${t.url}/api/v2/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}` },
      body: form,
    });
    expect(response.status).to.equal(200);
    const media = (await response.json()) as { id: string; url: string; preview_url: string };

    expect(media.url.startsWith(`${alias}/microblog/`), media.url).to.equal(true);
    const key = media.url.slice(`${alias}/microblog/`.length);
    expect(key).to.match(/^media_attachments\/[A-Za-z0-9_-]{19}\/original\.png$/);
    expect(await s3.keys()).to.include(`microblog/${key}`);
    expect(await readdir(t.ctx.config.media.dir).catch(() => [])).to.deep.equal([]);

    // Straight from the bucket, as a client follows the link: type and cache policy set at upload.
    const fromBucket = await fetch(media.url);
    expect(fromBucket.status).to.equal(200);
    expect(fromBucket.headers.get('content-type')).to.equal('image/png');
    expect(fromBucket.headers.get('cache-control')).to.equal(CACHE_CONTROL);
    const bytes = Buffer.from(await fromBucket.arrayBuffer());
    expect(await sharp(bytes).metadata()).to.include({ format: 'png', width: 320, height: 200 });
    expect((await fetch(media.preview_url)).headers.get('content-type')).to.match(/^image\//);

    // The service's own /system URL keeps working too, streamed from the bucket with ranges.
    const viaApp = await fetch(`${t.url}/system/${key}`, { headers: { Range: 'bytes=0-99' } });
    expect(viaApp.status).to.equal(206);
    expect(viaApp.headers.get('content-type')).to.equal('image/png');
    expect(viaApp.headers.get('content-range')).to.equal(`bytes 0-99/${bytes.length}`);
    expect(Buffer.from(await viaApp.arrayBuffer()).equals(bytes.subarray(0, 100))).to.equal(true);

    const removed = await fetch(`${t.url}/api/v1/media/${media.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(removed.status).to.equal(200);
    expect(await s3.keys()).to.deep.equal([]);
    expect((await fetch(media.url)).status).to.equal(404);
  });
});
