import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { Router } from 'express';
import { PREVIEW_IMAGE_PATH } from '../modules/instance/instance.service.js';

// Link-preview proportions (1.91:1), the size Mastodon's own default banner has.
const WIDTH = 1200;
const HEIGHT = 630;
const TOP: [number, number, number] = [0x2b, 0x2d, 0x42];
const BOTTOM: [number, number, number] = [0x59, 0x5a, 0xa8];

/** A vertical gradient PNG, drawn at start-up so the banner needs no binary file in the repository. */
export function renderPreviewImage(): Buffer {
  const row = WIDTH * 3 + 1;
  const pixels = Buffer.alloc(row * HEIGHT);
  for (let y = 0; y < HEIGHT; y += 1) {
    const t = y / (HEIGHT - 1);
    const colour = TOP.map((start, i) => Math.round(start + ((BOTTOM[i] ?? start) - start) * t));
    const offset = y * row;
    pixels[offset] = 0; // filter: none
    for (let x = 0; x < WIDTH; x += 1) {
      pixels[offset + 1 + x * 3] = colour[0] ?? 0;
      pixels[offset + 2 + x * 3] = colour[1] ?? 0;
      pixels[offset + 3 + x * 3] = colour[2] ?? 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** GET /images/preview.png: the instance banner when INSTANCE_THUMBNAIL_URL is not set. */
export function previewImageRouter(): Router {
  const image = renderPreviewImage();
  const etag = `"${createHash('sha256').update(image).digest('base64url').slice(0, 27)}"`;
  const router = Router();
  router.get(PREVIEW_IMAGE_PATH, (req, res) => {
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.setHeader('Content-Length', image.length);
    res.end(req.method === 'HEAD' ? undefined : image);
  });
  return router;
}
