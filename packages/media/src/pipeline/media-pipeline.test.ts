import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { isBlurhashValid } from 'blurhash';
import { expect } from 'chai';
import sharp from 'sharp';
import { BadInput } from '@agora/core';
import { requireSystemTool } from '@agora/core/testing';
import { MASTODON_MEDIA_LIMITS, MediaTooLarge } from '../limits/media-limits.js';
import { createDiskStorage } from '../storage/disk-storage.js';
import { locateFfmpeg, probe, run, type FfmpegTools } from './ffmpeg.js';
import { createMediaPipeline, type MediaPipelineOptions } from './media-pipeline.js';

function solid(width: number, height: number, background = '#3366cc') {
  return sharp({ create: { width, height, channels: 3, background } });
}

/** Every file (not folder) under a folder, relative paths. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the upload to be refused');
}

describe('media pipeline', () => {
  let base: string;
  let root: string;
  let spoolDir: string;

  const pipeline = (options: Partial<MediaPipelineOptions> = {}) =>
    createMediaPipeline({
      storage: createDiskStorage({ root, baseUrl: 'https://media.example/files' }),
      tmpDir: spoolDir,
      ...options,
    });
  const stored = (key: string) => path.join(root, ...key.split('/'));

  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'agora-media-test-'));
    root = path.join(base, 'media');
    spoolDir = path.join(base, 'tmp');
    await import('node:fs/promises').then((fs) => fs.mkdir(spoolDir));
  });

  afterEach(async () => {
    // Every job, accepted or refused, leaves its temp folder empty.
    expect(await readdir(spoolDir)).to.deep.equal([]);
    await rm(base, { recursive: true, force: true });
  });

  it('stores a PNG with a preview, dimensions, blurhash, hash and a 19-character shortcode', async () => {
    const png = await solid(300, 200).png().toBuffer();
    const media = await pipeline().process({ input: png, focus: { x: 0.5, y: -0.25 } });

    expect(media.type).to.equal('image');
    expect(media.contentType).to.equal('image/png');
    expect(media.shortcode).to.match(/^[A-Za-z0-9_-]{19}$/);
    expect(media.files.original.key).to.equal(`media_attachments/${media.shortcode}/original.png`);
    expect(media.files.original.url).to.equal(`https://media.example/files/${media.files.original.key}`);
    expect(media.meta.original).to.deep.equal({ width: 300, height: 200, size: '300x200', aspect: 1.5 });
    expect(media.meta.focus).to.deep.equal({ x: 0.5, y: -0.25 });
    expect(media.blurhash).to.be.a('string');
    expect(isBlurhashValid(media.blurhash!).result).to.equal(true);
    const { createHash } = await import('node:crypto');
    expect(media.sha256).to.equal(createHash('sha256').update(png).digest('hex'));

    const original = await sharp(stored(media.files.original.key)).metadata();
    expect([original.format, original.width, original.height]).to.deep.equal(['png', 300, 200]);
    expect(media.size).to.equal((await stat(stored(media.files.original.key))).size);
    expect(media.files.small?.contentType).to.equal('image/jpeg');
    expect(await filesUnder(root)).to.have.members(['original.png', 'small.jpg']);
  });

  it('gives the same hash and a new shortcode to the same bytes uploaded twice', async () => {
    const png = await solid(40, 40).png().toBuffer();
    const media = pipeline();
    const [first, second] = [await media.process({ input: png }), await media.process({ input: png })];
    expect(first.sha256).to.equal(second.sha256);
    expect(first.shortcode).not.to.equal(second.shortcode);
  });

  it('drops EXIF (GPS included) from a JPEG and applies its orientation', async () => {
    const jpeg = await solid(400, 200)
      .jpeg()
      .withExif({
        IFD0: { Copyright: 'agora-secret' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const before = await sharp(jpeg).metadata();
    expect(before.exif?.toString('latin1')).to.include('agora-secret');
    // The GPS IFD pointer (tag 0x8825, little-endian TIFF) is there before.
    expect(before.exif?.indexOf(Buffer.from([0x25, 0x88]))).to.be.greaterThan(0);
    expect(before.orientation).to.equal(6);

    const media = await pipeline().process({ input: Readable.from([jpeg]) });
    const after = await sharp(stored(media.files.original.key)).metadata();
    expect(after.exif).to.equal(undefined);
    expect(after.xmp).to.equal(undefined);
    expect(after.orientation).to.equal(undefined);
    // Rotated a quarter turn, as a viewer would have shown it.
    expect([after.width, after.height]).to.deep.equal([200, 400]);
    expect((await readFile(stored(media.files.original.key))).includes('agora-secret')).to.equal(false);
  });

  it('shrinks a large image into 1920×1080 and the preview into 640×640', async () => {
    const big = await solid(4000, 3000).jpeg().toBuffer();
    const media = await pipeline().process({ input: big });
    expect(media.meta.original).to.include({ width: 1440, height: 1080 });
    expect(media.meta.small).to.include({ width: 640, height: 480 });
    const original = await sharp(stored(media.files.original.key)).metadata();
    expect([original.width, original.height]).to.deep.equal([1440, 1080]);
  });

  it('refuses an HTML file named and declared as a PNG', async () => {
    const html = Buffer.from('<!doctype html><html><script>alert(1)</script></html>');
    const upload = path.join(base, 'picture.png');
    await writeFile(upload, html);
    const error = await rejection(pipeline().process({ input: upload }));
    expect(error).to.be.instanceOf(BadInput);
    expect((error as BadInput).code).to.equal('unsupported_media_type');
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('refuses an oversize stream without storing anything', async () => {
    const limits = { ...MASTODON_MEDIA_LIMITS, imageBytes: 50_000, videoBytes: 50_000 };
    const noise = Buffer.alloc(200_000, 7);
    const request = Readable.from([noise, noise]);
    const error = await rejection(pipeline({ limits }).process({ input: request }));
    // The request is drained, not torn down, so the app can still send its error response.
    expect(request.errored).to.equal(null);
    expect(error).to.be.instanceOf(MediaTooLarge);
    expect((error as MediaTooLarge).status).to.equal(422);
    expect((error as MediaTooLarge).limit).to.equal(50_000);
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('applies the smaller avatar limit and refuses images over the pixel limit', async () => {
    const png = await solid(600, 600).png({ compressionLevel: 0 }).toBuffer();
    const limits = { ...MASTODON_MEDIA_LIMITS, avatarBytes: png.length - 1, imageMatrixLimit: 100_000 };
    expect(await rejection(pipeline({ limits }).process({ kind: 'avatar', input: png }))).to.be.instanceOf(
      MediaTooLarge,
    );
    const pixels = await rejection(pipeline({ limits }).process({ input: png }));
    expect((pixels as MediaTooLarge).unit).to.equal('pixels');
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('refuses a corrupt image and leaves nothing behind', async () => {
    const png = await solid(500, 500, '#ff0000').png().toBuffer();
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const noisy = await sharp(
      data.map((_, i) => (i * 7919) % 251),
      { raw: info },
    )
      .png()
      .toBuffer();
    const truncated = noisy.subarray(0, Math.floor(noisy.length / 2));
    const error = await rejection(pipeline().process({ input: truncated }));
    expect(error).to.be.instanceOf(BadInput);
    expect((error as BadInput).code).to.equal('unprocessable_media');
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('removes what it stored when storing a later file fails', async () => {
    const disk = createDiskStorage({ root, baseUrl: 'https://media.example/files' });
    const failing = {
      ...disk,
      put: async (key: string, body: Parameters<typeof disk.put>[1], type: string) => {
        if (key.includes('/small.')) throw new Error('disk full');
        await disk.put(key, body, type);
      },
    };
    const png = await solid(100, 100).png().toBuffer();
    const error = await rejection(
      createMediaPipeline({ storage: failing, tmpDir: spoolDir }).process({ input: png }),
    );
    expect((error as Error).message).to.equal('disk full');
    expect(await filesUnder(root)).to.deep.equal([]);
  });

  it('keeps an animated GIF as an image when ffmpeg is off', async () => {
    const gif = await animatedGif();
    const media = await pipeline({ ffmpegPath: null }).process({ input: gif });
    expect(media.type).to.equal('image');
    expect(media.contentType).to.equal('image/gif');
    const stored_ = await sharp(stored(media.files.original.key), { animated: true }).metadata();
    expect(stored_.pages).to.equal(3);
  });

  describe('with ffmpeg', function () {
    let ffmpeg: FfmpegTools | null;
    before(async function () {
      await requireSystemTool(this, 'ffmpeg');
      // Looked up here, not at import: a cold first start under a loaded CI machine took over 10 s.
      ffmpeg = await locateFfmpeg(undefined, 60_000);
      if (!ffmpeg) throw new Error('ffmpeg is installed but `ffmpeg -version` did not answer');
    });

    it('turns an animated GIF into a muted H.264 MP4 (gifv)', async () => {
      const media = await pipeline().process({ input: await animatedGif() });
      expect(media.type).to.equal('gifv');
      expect(media.contentType).to.equal('video/mp4');
      expect(media.files.original.key).to.match(/\/original\.mp4$/);
      const probed = await probe(ffmpeg!, stored(media.files.original.key));
      expect(probed.video).to.include({ codec: 'h264', pixFmt: 'yuv420p', width: 64, height: 48 });
      expect(probed.audio).to.equal(undefined);
      expect(media.meta.original).to.include({ width: 64, height: 48 });
      expect(media.meta.duration).to.be.greaterThan(0);
      expect(media.files.small?.contentType).to.equal('image/jpeg');
      expect(isBlurhashValid(media.blurhash!).result).to.equal(true);
    });

    it('re-encodes a WebM video to MP4 with its duration, size and sound', async () => {
      const webm = path.join(base, 'clip.webm');
      await run(ffmpeg!.ffmpeg, [
        ...['-hide_banner', '-y', '-f', 'lavfi', '-i', 'testsrc=size=161x120:rate=10:duration=1'],
        ...['-f', 'lavfi', '-i', 'sine=duration=1', '-shortest'],
        ...['-c:v', 'libvpx', '-deadline', 'realtime', '-c:a', 'libopus', webm],
      ]);
      const media = await pipeline().process({ input: webm });
      expect(media.type).to.equal('video');
      expect(media.meta.original).to.include({ width: 160, height: 120, frame_rate: '10/1' });
      expect(media.meta.duration).to.be.closeTo(1, 0.2);
      expect(media.meta.audio).to.equal(true);
      const probed = await probe(ffmpeg!, stored(media.files.original.key));
      expect([probed.video?.codec, probed.audio?.codec]).to.deep.equal(['h264', 'aac']);
      // The caller's own file is left alone.
      expect((await stat(webm)).size).to.be.greaterThan(0);
    });

    it('keeps audio as it is with its duration, and refuses it as an avatar', async () => {
      const wav = path.join(base, 'tone.wav');
      await run(ffmpeg!.ffmpeg, ['-hide_banner', '-y', '-f', 'lavfi', '-i', 'sine=duration=1', wav]);
      const media = await pipeline().process({ input: wav });
      expect([media.type, media.contentType, media.files.small]).to.deep.equal([
        'audio',
        'audio/wav',
        undefined,
      ]);
      expect(media.meta.duration).to.be.closeTo(1, 0.05);
      expect(media.size).to.equal((await stat(wav)).size);
      const error = await rejection(pipeline().process({ kind: 'avatar', input: wav }));
      expect((error as BadInput).code).to.equal('unsupported_media_type');
    });

    it('passes a browser-ready MP4 through without its location tag, and refuses a damaged one', async () => {
      const mp4 = path.join(base, 'clip.mp4');
      await run(ffmpeg!.ffmpeg, [
        ...['-hide_banner', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1'],
        ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-metadata', 'location=+48.8584+002.2945/', mp4],
      ]);
      const tags = (file: string) => run(ffmpeg!.ffprobe, ['-v', 'error', '-show_format', file]);
      expect(await tags(mp4)).to.include('48.8584');
      const media = await pipeline().process({ input: mp4 });
      expect(media.meta.original).to.include({ width: 160, height: 120 });
      expect(media.meta.audio).to.equal(false);
      expect(await tags(stored(media.files.original.key))).not.to.include('48.8584');
      await pipeline().remove(media);
      expect(await filesUnder(root)).to.deep.equal([]);

      const bytes = await readFile(mp4);
      const error = await rejection(pipeline().process({ input: bytes.subarray(0, 64) }));
      expect(error).to.be.instanceOf(BadInput);
      expect(await filesUnder(root)).to.deep.equal([]);
    });
  });
});

async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all(
    ['#ff0000', '#00ff00', '#0000ff'].map((background) => solid(64, 48, background).png().toBuffer()),
  );
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: [100, 100, 100], loop: 0 })
    .toBuffer();
}
