import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { ConfigError } from '@agora/core';
import { startS3TestServer, type S3TestServer } from '@agora/media/testing';
import { loadConfig } from '../../config/config.js';
import { graphql, ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

interface MediaResult {
  id: string;
  url: string;
  contentType: string;
  size: number;
}

describe('media in an S3 bucket (S3_ENABLED, a real S3-compatible server on loopback)', () => {
  let s3: S3TestServer;
  let server: TestServer;

  before(async () => {
    s3 = await startS3TestServer();
    server = await startTestServer('media-s3', { ...s3.env, S3_PREFIX: 'events' });
  });
  after(async () => {
    await server?.stop();
    await s3?.stop();
  });

  it('refuses to boot with S3_ENABLED but no bucket or keys, naming each', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', S3_ENABLED: 'true', AWS_ACCESS_KEY_ID: 'id' }))
      .to.throw(ConfigError)
      .with.property('issues')
      .that.includes.members([
        'S3_BUCKET: is required when S3_ENABLED=true',
        'AWS_SECRET_ACCESS_KEY: is required when S3_ENABLED=true',
      ]);
  });

  it('stores an uploadMedia picture in the bucket and serves it at /media with its type and ranges', async () => {
    const { user } = await server.ctx.accounts.create({
      email: 'alice@example.org',
      provider: 'ldap',
      confirmed: true,
    });
    const { accessToken } = await server.ctx.sessions.issuePair(user);
    const auth = { authorization: `Bearer ${accessToken}` };
    ok(
      await graphql(server.url, 'mutation { createPerson(preferredUsername: "alice") { id } }', {
        headers: auth,
      }),
      'createPerson',
    );

    // The GraphQL multipart request spec: operations, map, then the file.
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query:
          'mutation($file: Upload!) { uploadMedia(file: $file, name: "sky.png") { id url contentType size } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#4080ff' } })
      .png()
      .toBuffer();
    form.append('0', new Blob([png], { type: 'image/png' }), 'sky.png');
    const uploaded = await fetch(`${server.url}/api`, { method: 'POST', headers: auth, body: form });
    const text = await uploaded.text();
    const media = ok<MediaResult>(
      {
        status: uploaded.status,
        contentType: uploaded.headers.get('content-type'),
        body: JSON.parse(text),
        text,
      },
      'uploadMedia',
    );

    // The URL is the service's own, as with disk storage; the bytes live in the bucket only.
    const prefix = `${server.ctx.config.http.publicUrl}/media/`;
    expect(media.url.startsWith(prefix), media.url).to.equal(true);
    expect(await s3.keys()).to.include(`events/${media.url.slice(prefix.length)}`);
    const onDisk = await readdir(join(server.ctx.config.dataDir, 'media', 'events')).catch(() => []);
    expect(onDisk).to.deep.equal([]);

    const whole = await fetch(media.url);
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('image/png');
    expect(whole.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    const body = Buffer.from(await whole.arrayBuffer());
    expect(body.length).to.equal(media.size);
    expect(await sharp(body).metadata()).to.include({ format: 'png', width: 64, height: 48 });

    const part = await fetch(media.url, { headers: { range: 'bytes=1-3' } });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes 1-3/${media.size}`);
    expect(Buffer.from(await part.arrayBuffer()).toString('latin1')).to.equal('PNG');

    ok(
      await graphql(server.url, 'mutation($id: ID!) { removeMedia(id: $id) { id } }', {
        variables: { id: media.id },
        headers: auth,
      }),
      'removeMedia',
    );
    expect(await s3.keys()).to.deep.equal([]);
    expect((await fetch(media.url)).status).to.equal(404);
  });
});
