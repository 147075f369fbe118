import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import sharp from 'sharp';
import { INBOX_JOB } from '@agora/federation';
import { FakeRemote } from '@agora/federation/testing';
import { CACHE_REMOTE_MEDIA_JOB } from '@agora/media';
import type { AccountJson } from '../../entities/account.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

/** An image host on a loopback address of its own, counting what it is asked for. */
async function imageOrigin(address: string, body: Buffer) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  server.listen(0, address);
  await once(server, 'listening');
  return { hits, server, url: `http://${address}:${(server.address() as AddressInfo).port}` };
}

describe('remote media (microblog)', () => {
  let server: TestServer;
  let remote: FakeRemote;
  let images: Awaited<ReturnType<typeof imageOrigin>>;
  let blockedImages: Awaited<ReturnType<typeof imageOrigin>>;
  let png: Buffer;

  before(async () => {
    png = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#0a6' } })
      .png()
      .withExif({ IFD0: { Copyright: 'agora-secret-exif' } })
      .toBuffer();
    remote = await FakeRemote.start();
    images = await imageOrigin('127.0.0.1', png);
    blockedImages = await imageOrigin('127.0.0.2', png);
    server = await startTestServer('remote_media', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1,127.0.0.2' },
    });
  });
  after(async () => {
    await server?.stop();
    await remote?.stop();
    images?.server.close();
    blockedImages?.server.close();
  });

  const account = async (id: string) =>
    (await (await fetch(`${server.url}/api/v1/accounts/${id}`)).json()) as AccountJson;

  it('shows the local copy of a remote avatar once the job ran, stripped of EXIF', async () => {
    const bob = remote.addActor('bob', {
      extra: {
        icon: { type: 'Image', url: `${images.url}/bob.png` },
        image: { type: 'Image', url: `${images.url}/bob-header.png` },
      },
    });
    const actor = await server.ctx.federation.remoteActors.resolve(bob.uri);
    await server.ctx.queue.drain([CACHE_REMOTE_MEDIA_JOB]);

    const json = await account(actor.id);
    expect(json.avatar).to.match(
      new RegExp(`^${server.url}/system/avatars/[A-Za-z0-9_-]{19}/original\\.png$`),
    );
    expect(json.avatar_static).to.equal(json.avatar);
    expect(json.header).to.match(new RegExp(`^${server.url}/system/headers/`));
    const served = await fetch(json.avatar);
    expect(served.status).to.equal(200);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect((await sharp(bytes).metadata()).exif).to.equal(undefined);
    expect(images.hits.filter((hit) => hit === '/bob.png')).to.have.length(1);

    // Stored again (refetched): the copy is fresh, the image host is not asked again.
    await server.ctx.federation.remoteActors.resolve(bob.uri, { refresh: true });
    await server.ctx.queue.drain([CACHE_REMOTE_MEDIA_JOB]);
    expect(images.hits.filter((hit) => hit === '/bob.png')).to.have.length(1);
    expect((await account(actor.id)).avatar).to.equal(json.avatar);
  });

  it('caches the new avatar of a profile Update received in the inbox', async () => {
    const erin = remote.addActor('erin', {
      extra: { icon: { type: 'Image', url: `${images.url}/erin.png` } },
    });
    const actor = await server.ctx.federation.remoteActors.resolve(erin.uri);
    await server.ctx.queue.drain([CACHE_REMOTE_MEDIA_JOB]);
    const before = (await account(actor.id)).avatar;
    const update = {
      id: `${erin.uri}#updates/1`,
      type: 'Update',
      actor: erin.uri,
      object: { ...remote.document(erin), icon: { type: 'Image', url: `${images.url}/erin-new.png` } },
    };
    expect((await remote.send(erin, `${server.url}/inbox`, update)).status).to.equal(202);
    await server.ctx.queue.drain([INBOX_JOB, CACHE_REMOTE_MEDIA_JOB]);
    const after = (await account(actor.id)).avatar;
    expect(after).to.match(new RegExp(`^${server.url}/system/avatars/`));
    expect(after).to.not.equal(before);
    expect(images.hits).to.include('/erin-new.png');
  });

  it('shows missing.png, never the remote URL, while there is no copy (private address refused)', async () => {
    // `localhost` resolves to loopback but is not allow-listed: the guarded client refuses it.
    const port = new URL(images.url).port;
    const carol = remote.addActor('carol', {
      extra: { icon: { type: 'Image', url: `http://localhost:${port}/carol.png` } },
    });
    const actor = await server.ctx.federation.remoteActors.resolve(carol.uri);
    await server.ctx.queue.drain([CACHE_REMOTE_MEDIA_JOB]);

    expect(images.hits).to.not.include('/carol.png');
    const record = await server.ctx.remoteMedia.cache.find(`http://localhost:${port}/carol.png`);
    expect(record).to.include({ localUrl: null, error: 'refused' });
    const json = await account(actor.id);
    expect(json.avatar).to.equal(`${server.url}/avatars/original/missing.png`);
    expect(json.header).to.equal(`${server.url}/headers/original/missing.png`);
    expect((await fetch(json.avatar)).status).to.equal(200);
  });

  it('never contacts a domain blocked with reject media', async () => {
    await server.ctx.federation.domainBlocks.block({
      domain: '127.0.0.2',
      severity: 'noop',
      rejectMedia: true,
    });
    const dave = remote.addActor('dave', {
      extra: { icon: { type: 'Image', url: `${blockedImages.url}/dave.png` } },
    });
    const actor = await server.ctx.federation.remoteActors.resolve(dave.uri);
    await server.ctx.queue.drain([CACHE_REMOTE_MEDIA_JOB]);

    expect(blockedImages.hits).to.deep.equal([]);
    expect((await account(actor.id)).avatar).to.equal(`${server.url}/avatars/original/missing.png`);
  });
});
