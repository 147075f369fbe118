import { encode } from 'blurhash';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { BadInput } from '@agora/core';
import { MediaTooLarge, type MediaLimits } from '../limits/media-limits.js';

export interface ImageOutput {
  file: string;
  contentType: string;
  width: number;
  height: number;
  size: number;
}

export function unprocessable(cause: unknown): BadInput {
  return new BadInput('The file could not be processed', {
    code: 'unprocessable_media',
    fields: { file: ['is damaged or not a supported file'] },
    cause,
  });
}

/** Checks the image's pixel count from its header, before anything is decoded. */
export async function assertImageMatrix(file: string, limits: MediaLimits): Promise<Metadata> {
  const metadata = await sharp(file)
    .metadata()
    .catch((error: unknown) => {
      throw unprocessable(error);
    });
  const pixels = (metadata.width ?? 0) * (metadata.pageHeight ?? metadata.height ?? 0);
  if (pixels > limits.imageMatrixLimit) {
    throw new MediaTooLarge(
      `The image is too large: ${pixels} pixels, the limit is ${limits.imageMatrixLimit}`,
      limits.imageMatrixLimit,
      'pixels',
    );
  }
  return metadata;
}

function open(file: string, limits: MediaLimits, animated = false): Sharp {
  // failOn 'error' refuses truncated/corrupt data instead of storing a half-grey picture.
  return sharp(file, {
    limitInputPixels: limits.imageMatrixLimit,
    failOn: 'error',
    animated,
  }).autoOrient();
}

/**
 * The stored original: orientation applied, every metadata block (EXIF, GPS, XMP, ICC) dropped,
 * shrunk into the configured box. Animated GIFs stay animated GIFs.
 */
export async function writeOriginal(
  file: string,
  mime: string,
  target: string,
  limits: MediaLimits,
): Promise<ImageOutput> {
  const animated = mime === 'image/gif';
  let image = open(file, limits, animated).resize({
    width: limits.maxWidth,
    height: limits.maxHeight,
    fit: 'inside',
    withoutEnlargement: true,
  });
  let contentType = mime;
  // Plain libjpeg with optimised Huffman tables: mozjpeg's trellis search saves ~12% of the bytes of
  // a full-size photo for ~12× the encoding time, and this encode is most of an upload's cost.
  if (mime === 'image/jpeg') image = image.jpeg({ quality: 85, optimiseCoding: true });
  else if (mime === 'image/png') image = image.png({ compressionLevel: 9 });
  else if (mime === 'image/gif') image = image.gif();
  else {
    // WebP and AVIF are both stored as WebP (AVIF encoding is slow and less widely shown).
    image = image.webp({ quality: 85 });
    contentType = 'image/webp';
  }
  const info = await image.toFile(target).catch((error: unknown) => {
    throw unprocessable(error);
  });
  return {
    file: target,
    contentType,
    width: info.width,
    height: info.pageHeight ?? info.height,
    size: info.size,
  };
}

/** The preview: first frame, in the small box, JPEG (PNG when transparent). */
export async function writeSmall(
  file: string,
  target: string,
  limits: MediaLimits,
  hasAlpha: boolean,
): Promise<ImageOutput> {
  const image = open(file, limits).resize({
    width: limits.smallWidth,
    height: limits.smallHeight,
    fit: 'inside',
    withoutEnlargement: true,
  });
  const contentType = hasAlpha ? 'image/png' : 'image/jpeg';
  const info = await (hasAlpha ? image.png() : image.jpeg({ quality: 80, mozjpeg: true }))
    .toFile(target)
    .catch((error: unknown) => {
      throw unprocessable(error);
    });
  return { file: target, contentType, width: info.width, height: info.height, size: info.size };
}

/** A BlurHash (4×4 components, as Mastodon) of the first frame, computed from a 32 px thumbnail. */
export async function blurhashOf(file: string, limits: MediaLimits): Promise<string> {
  const { data, info } = await open(file, limits)
    .resize({ width: 32, height: 32, fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encode(new Uint8ClampedArray(data), info.width, info.height, 4, 4);
}
