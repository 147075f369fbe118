import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { Router } from 'express';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../../entities/account.js';

/** A one-colour RGB PNG, drawn at start-up so the defaults need no binary files in the repository. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.alloc(width * 3 + 1);
  for (let x = 0; x < width; x += 1) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** GET the default avatar (square) and header (3:1) of accounts without images, so clients show no broken images. */
export function missingImagesRouter(): Router {
  const router = Router();
  const images: Array<[string, Buffer]> = [
    [MISSING_AVATAR_PATH, solidPng(120, 120, [0x9b, 0xa2, 0xb0])],
    [MISSING_HEADER_PATH, solidPng(600, 200, [0x60, 0x67, 0x84])],
  ];
  for (const [path, image] of images) {
    const etag = `"${createHash('sha256').update(image).digest('base64url').slice(0, 27)}"`;
    router.get(path, (req, res) => {
      res.setHeader('Content-Type', 'image/png');
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.setHeader('ETag', etag);
      if (req.headers['if-none-match'] === etag) {
        res.status(304).end();
        return;
      }
      res.end(req.method === 'HEAD' ? undefined : image);
    });
  }
  return router;
}
