import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Router } from 'express';

export type Rgb = readonly [number, number, number];

/**
 * An 8-bit RGB PNG whose rows each have one colour (solid fills, vertical gradients), drawn at
 * start-up so the default images need no binary files in the repository.
 */
export function rowColouredPng(width: number, height: number, colourOfRow: (y: number) => Rgb): Buffer {
  const stride = width * 3 + 1;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const colour = colourOfRow(y);
    // Byte 0 of each row is the filter type: 0 = none.
    for (let x = 0; x < width; x += 1) pixels.set(colour, y * stride + 1 + x * 3);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
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

/** GET (and HEAD) of one in-memory PNG, cacheable for a day, with an ETag and 304s. */
export function servePng(router: Router, path: string, image: Buffer): void {
  const etag = `"${createHash('sha256').update(image).digest('base64url').slice(0, 27)}"`;
  router.get(path, (req, res) => {
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
}
