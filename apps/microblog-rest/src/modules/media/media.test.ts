import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { QueryTypes } from 'sequelize';
import sharp from 'sharp';
import { MICROBLOG_POLICIES, RateLimiter, userSubject } from '@agora/auth';
import { createSequelize, type Sequelize } from '@agora/db';
import { requireSystemTool } from '@agora/core/testing';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { createMicroblogTestDatabase, startTestServer, type TestServer } from '../../testing/server.js';
import { PROCESS_MEDIA_JOB } from './media-attachment.service.js';

const run = promisify(execFile);
type Json = Record<string, unknown>;

const SIZE: Shape = { width: 'number', height: 'number', size: 'string', aspect: 'number' };
const IMAGE_ATTACHMENT: Shape = {
  id: 'string',
  type: 'string',
  url: 'string',
  preview_url: 'string',
  remote_url: 'null',
  meta: { original: SIZE, small: SIZE },
  description: 'string|null',
  blurhash: 'string',
};

/** A one-colour PNG of this size. */
function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}

describe('media: uploads, processing, owner-only access, avatars, rate limit (clock pinned)', () => {
  const NOW = new Date('2026-11-23T10:00:10.000Z');
  let t: TestServer;
  let db: { url: string; drop(): Promise<void> };
  let sequelize: Sequelize;
  let rateLimiter: RateLimiter;
  let app: TestApp;
  let work: string;

  before(async () => {
    db = await createMicroblogTestDatabase('media');
    sequelize = createSequelize({ url: db.url });
    rateLimiter = new RateLimiter(sequelize, { now: () => NOW });
    // A small image limit, so an oversize image is cheap to make.
    t = await startTestServer('media', {
      databaseUrl: db.url,
      overrides: { rateLimiter },
      env: { MEDIA_IMAGE_SIZE_LIMIT: '150000' },
    });
    app = await registerApp(t.url, 'Media test');
    work = await mkdtemp(path.join(tmpdir(), 'agora-media-test-'));
  });
  after(async () => {
    await t?.stop();
    await sequelize?.close();
    await db?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const signedIn = (username: string) => signedInAccount(t, app, username);

  async function upload(
    version: 'v1' | 'v2',
    token: string,
    file: Buffer,
    name: string,
    type: string,
    fields: Record<string, string> = {},
  ): Promise<{ status: number; body: Json }> {
    const form = new FormData();
    form.append('file', new Blob([file], { type }), name);
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    const response = await fetch(`${t.url}/api/${version}/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function get(pathname: string, token: string): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${t.url}${pathname}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function served(url: string): Promise<{ type: string | null; bytes: Buffer }> {
    const response = await fetch(url);
    expect(response.status, url).to.equal(200);
    return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** Every file under the media folders (stored and waiting), to see that a refusal left none. */
  async function storedFiles(): Promise<string[]> {
    const { dir, incomingDir } = t.ctx.config.media;
    const lists = await Promise.all(
      [dir, incomingDir].map((root) =>
        readdir(root, { recursive: true, withFileTypes: true }).catch(() => []),
      ),
    );
    return lists
      .flat()
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
  }

  async function rowCount(accountId: string): Promise<number> {
    const [row] = await t.ctx.sequelize.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM media_attachments WHERE account_id = $1',
      { bind: [accountId], type: QueryTypes.SELECT },
    );
    return row?.count ?? 0;
  }

  it('masto.js uploads a PNG through v2, waits for its url, then describes it', async () => {
    const alice = await signedIn('alice');
    const masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const media = await masto.v2.media.create({
      file: new Blob([await png(800, 600)], { type: 'image/png' }),
      description: 'A red square',
      focus: '0.5,-0.25',
    });
    expect(media.type).to.equal('image');
    expect(media.url).to.match(
      new RegExp(`^${t.url}/system/media_attachments/[A-Za-z0-9_-]{19}/original\\.png$`),
    );
    expect(media.description).to.equal('A red square');
    expect(media.meta?.original).to.deep.equal({
      width: 800,
      height: 600,
      size: '800x600',
      aspect: 800 / 600,
    });
    expect(media.meta?.focus).to.deep.equal({ x: 0.5, y: -0.25 });

    const updated = await masto.v1.media.$select(media.id).update({ description: 'A crimson rectangle' });
    expect(updated.description).to.equal('A crimson rectangle');
    const fetched = await get(`/api/v1/media/${media.id}`, alice.token);
    expect(fetched.status).to.equal(200);
    expectShape(fetched.body, {
      ...IMAGE_ATTACHMENT,
      meta: { original: SIZE, small: SIZE, focus: { x: 'number', y: 'number' } },
    });
    expect(fetched.body.description).to.equal('A crimson rectangle');

    const file = await served(media.url!);
    expect(file.type).to.equal('image/png');
    expect((await sharp(file.bytes).metadata()).width).to.equal(800);
    expect((await served(media.previewUrl!)).type).to.match(/^image\//);
  });

  it('v1 answers 200 with the attachment at once; the JPEG it serves has no GPS position left', async () => {
    const alice = await signedIn('alice-jpeg');
    const jpeg = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#3080c0' } })
      .jpeg()
      .withExif({
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 24/1',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 21/1 3/1',
        },
      })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif, 'the upload carries EXIF').to.be.instanceOf(Buffer);

    const { status, body } = await upload('v1', alice.token, jpeg, 'holiday.jpg', 'image/jpeg');
    expect(status).to.equal(200);
    expectShape(body, IMAGE_ATTACHMENT);
    const file = await served(body.url as string);
    expect(file.type).to.equal('image/jpeg');
    const metadata = await sharp(file.bytes).metadata();
    expect(metadata.exif).to.equal(undefined);
    expect(file.bytes.includes(Buffer.from('GPS'))).to.equal(false);
  });

  it('turns an animated GIF into a gifv (an MP4 without sound)', async function () {
    await requireSystemTool(this, 'ffmpeg');
    const alice = await signedIn('alice-gif');
    const gif = path.join(work, 'anim.gif');
    await run('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=48x32:rate=5',
      '-t',
      '1',
      '-y',
      gif,
    ]);
    const { status, body } = await upload('v2', alice.token, await readFile(gif), 'anim.gif', 'image/gif');
    expect(status).to.equal(200);
    expect(body.type).to.equal('gifv');
    expect(body.url).to.match(/\/original\.mp4$/);
    expect((await served(body.url as string)).type).to.equal('video/mp4');
    expect((body.meta as { original: Json }).original).to.include({ width: 48, height: 32 });
  });

  it('v2 queues a video (202, url null), GET says 206 until the worker is done, then 200', async function () {
    await requireSystemTool(this, 'ffmpeg');
    const alice = await signedIn('alice-video');
    const mp4 = path.join(work, 'clip.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', mp4],
    ]);
    // The worker waits at this gate, so the first GET sees the upload still processing.
    const pipeline = t.ctx.mediaPipeline;
    const process = pipeline.process;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    pipeline.process = async (request) => {
      await gate;
      return process(request);
    };
    after(() => {
      pipeline.process = process;
    });
    const { status, body } = await upload('v2', alice.token, await readFile(mp4), 'clip.mp4', 'video/mp4', {
      description: 'Test card',
    });
    expect(status).to.equal(202);
    expect(body).to.deep.include({ type: 'video', url: null, preview_url: null, description: 'Test card' });
    const pending = await get(`/api/v1/media/${body.id as string}`, alice.token);
    expect(pending.status).to.equal(206);
    expect(pending.body).to.deep.include({ url: null, description: 'Test card' });

    open();
    await t.ctx.queue.drain([PROCESS_MEDIA_JOB]);
    pipeline.process = process;
    const done = await get(`/api/v1/media/${body.id as string}`, alice.token);
    expect(done.status).to.equal(200);
    expect(done.body.type).to.equal('video');
    expect(done.body.url).to.match(/\/original\.mp4$/);
    expect((done.body.meta as { original: Json }).original).to.include({ width: 64, height: 48 });
    expect((await served(done.body.url as string)).type).to.equal('video/mp4');
    expect(await readdir(t.ctx.config.media.incomingDir)).to.deep.equal([]);
  });

  it('refuses HTML named .png with 422 and keeps no row and no file', async () => {
    const mallory = await signedIn('mallory');
    const before = await storedFiles();
    const html = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
    for (const version of ['v1', 'v2'] as const) {
      const refused = await upload(version, mallory.token, html, 'cat.png', 'image/png');
      expect(refused).to.deep.equal({
        status: 422,
        body: { error: 'Validation failed: File content type is invalid' },
      });
    }
    expect(await rowCount(mallory.id)).to.equal(0);
    expect(await storedFiles()).to.deep.equal(before);
  });

  it('refuses an image over the size limit with Mastodon’s 422 and keeps nothing', async () => {
    const mallory = await signedIn('mallory-big');
    const before = await storedFiles();
    const noise = await sharp(randomBytes(300 * 300 * 3), { raw: { width: 300, height: 300, channels: 3 } })
      .png()
      .toBuffer();
    expect(noise.length).to.be.greaterThan(150_000);
    for (const version of ['v1', 'v2'] as const) {
      const refused = await upload(version, mallory.token, noise, 'noise.png', 'image/png');
      expect(refused).to.deep.equal({
        status: 422,
        body: { error: 'Validation failed: File file size must be less than 146 KB' },
      });
    }
    expect(await rowCount(mallory.id)).to.equal(0);
    expect(await storedFiles()).to.deep.equal(before);
  });

  it("answers 404 for another account's media, for reading, editing and deleting", async () => {
    const alice = await signedIn('alice-own');
    const bob = await signedIn('bob');
    const { body } = await upload('v1', alice.token, await png(20, 20), 'a.png', 'image/png');
    const url = `${t.url}/api/v1/media/${body.id as string}`;
    const asBob = { Authorization: `Bearer ${bob.token}`, 'Content-Type': 'application/json' };
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await fetch(url, {
        method,
        headers: asBob,
        ...(method === 'PUT' ? { body: JSON.stringify({ description: 'mine now' }) } : {}),
      });
      expect(response.status, method).to.equal(404);
      expect(await response.json()).to.deep.equal({ error: 'Record not found' });
    }
    const still = await get(`/api/v1/media/${body.id as string}`, alice.token);
    expect(still.body.description).to.equal(null);
    // The owner may delete it: row and files go.
    const deleted = await fetch(url, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(deleted.status).to.equal(200);
    expect((await fetch(body.url as string)).status).to.equal(404);
    expect(await rowCount(alice.id)).to.equal(0);
  });

  it('stores an avatar and a header sent to update_credentials, cropped, and serves them', async () => {
    const dana = await signedIn('dana');
    const masto = createRestAPIClient({ url: t.url, accessToken: dana.token });
    const updated = await masto.v1.accounts.updateCredentials({
      avatar: new Blob([await png(900, 600)], { type: 'image/png' }),
      header: new Blob([await png(600, 600)], { type: 'image/png' }),
      displayName: 'Dana',
    });
    expect(updated.displayName).to.equal('Dana');
    const account = await masto.v1.accounts.verifyCredentials();
    expect(account.avatar).to.match(new RegExp(`^${t.url}/system/avatars/[A-Za-z0-9_-]{19}/original\\.png$`));
    expect(account.avatarStatic).to.equal(account.avatar);
    expect(account.header).to.match(new RegExp(`^${t.url}/system/headers/`));
    const avatar = await sharp((await served(account.avatar)).bytes).metadata();
    expect([avatar.width, avatar.height]).to.deep.equal([400, 400]);
    const header = await sharp((await served(account.header)).bytes).metadata();
    expect([header.width, header.height]).to.deep.equal([1500, 500]);
    const actor = await t.ctx.actors.findById(dana.id);
    expect(actor?.avatarUrl).to.equal(account.avatar);

    // A new avatar replaces the old one, whose file goes.
    await masto.v1.accounts.updateCredentials({
      avatar: new Blob([await png(50, 50)], { type: 'image/png' }),
    });
    const after = await masto.v1.accounts.verifyCredentials();
    expect(after.avatar).to.not.equal(account.avatar);
    expect((await fetch(account.avatar)).status).to.equal(404);
    expect(after.header).to.equal(account.header);
  });

  it('refuses an avatar that is not an image, changing nothing', async () => {
    const erin = await signedIn('erin');
    const form = new FormData();
    form.append('display_name', 'Erin');
    form.append('avatar', new Blob(['just text'], { type: 'image/png' }), 'a.png');
    const response = await fetch(`${t.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${erin.token}` },
      body: form,
    });
    expect(response.status).to.equal(422);
    expect(await response.json()).to.deep.equal({
      error: 'Validation failed: Avatar content type is invalid',
    });
    const actor = await t.ctx.actors.findById(erin.id);
    expect(actor).to.deep.include({ displayName: '', avatarUrl: null });
  });

  it('refuses the 31st upload of a user in 30 minutes with 429', async function () {
    // Thirty real uploads through the media pipeline: room for a machine busy with other suites.
    this.timeout(120_000);
    const carol = await signedIn('carol');
    await rateLimiter.reset(MICROBLOG_POLICIES.media, userSubject(carol.userId));
    const image = await png(8, 8);
    const statuses: number[] = [];
    for (let batch = 0; batch < 3; batch += 1) {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => upload('v2', carol.token, image, 'dot.png', 'image/png')),
      );
      statuses.push(...results.map((result) => result.status));
    }
    expect(statuses.every((status) => status === 200)).to.equal(true);
    const form = new FormData();
    form.append('file', new Blob([image], { type: 'image/png' }), 'dot.png');
    const refused = await fetch(`${t.url}/api/v1/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${carol.token}` },
      body: form,
    });
    expect(refused.status).to.equal(429);
    expect(await refused.json()).to.deep.equal({ error: 'Too many requests' });
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('30');
    expect(refused.headers.get('x-ratelimit-reset')).to.equal('2026-11-23T10:30:00.000Z');
    expect(await rowCount(carol.id)).to.equal(30);
  });
});
