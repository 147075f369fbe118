import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MediaTooLarge } from '../limits/media-limits.js';

export type MediaInput = Buffer | Readable | string;

export interface Spooled {
  /** A local file holding the input: the caller's own path, or one written under the job's temp folder. */
  file: string;
  size: number;
  sha256: string;
}

function tooLarge(limit: number): MediaTooLarge {
  return new MediaTooLarge(`The file is too large: the limit is ${limit} bytes`, limit, 'bytes');
}

/**
 * Puts the input in a local file (processing tools need one), hashing it on the way, and stops
 * reading as soon as it passes `maxBytes` so an oversize stream is never stored whole.
 */
export async function spool(input: MediaInput, target: string, maxBytes: number): Promise<Spooled> {
  if (typeof input === 'string') {
    const { size } = await stat(input);
    if (size > maxBytes) throw tooLarge(maxBytes);
    const hash = createHash('sha256');
    await pipeline(createReadStream(input), hash);
    return { file: input, size, sha256: hash.digest('hex') };
  }
  if (Buffer.isBuffer(input) && input.length > maxBytes) throw tooLarge(maxBytes);
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        done(tooLarge(maxBytes));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const source = Buffer.isBuffer(input) ? Readable.from(slices(input)) : input;
  const written = pipeline(meter, createWriteStream(target, { flags: 'wx' }));
  // The caller's stream (often the request) is not destroyed on failure: it is drained instead,
  // so the app can still answer with its error.
  source.on('error', (error: Error) => meter.destroy(error));
  source.pipe(meter);
  try {
    await written;
  } catch (error) {
    source.unpipe(meter);
    source.resume();
    throw error;
  }
  return { file: target, size, sha256: hash.digest('hex') };
}

// A large buffer is hashed and written in 64 KiB steps so the event loop gets turns in between.
function* slices(buffer: Buffer): Generator<Buffer> {
  for (let offset = 0; offset < buffer.length; offset += 65_536)
    yield buffer.subarray(offset, offset + 65_536);
}
