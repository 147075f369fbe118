import { fileTypeFromFile } from 'file-type';
import { BadInput } from '@agora/core';

export type MediaType = 'image' | 'gifv' | 'video' | 'audio';

export interface Sniffed {
  family: 'image' | 'video' | 'audio';
  mime: string;
}

// What we accept, by the type detected from the bytes. SVG, HTML and everything else are refused.
const ACCEPTED: Record<string, Sniffed['family']> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'image/avif': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'video/webm': 'video',
  'video/x-m4v': 'video',
  'audio/mpeg': 'audio',
  'audio/ogg': 'audio',
  'audio/opus': 'audio',
  'audio/wav': 'audio',
  'audio/flac': 'audio',
  'audio/x-flac': 'audio',
  'audio/x-m4a': 'audio',
  'audio/mp4': 'audio',
  'audio/aac': 'audio',
};

/** The MIME types an upload may have (for the apps' instance configuration). */
export const SUPPORTED_MIME_TYPES: readonly string[] = Object.freeze(Object.keys(ACCEPTED));

export function unsupported(): BadInput {
  return new BadInput('This file type is not supported', {
    code: 'unsupported_media_type',
    fields: { file: ['must be an image, video or audio file'] },
  });
}

/** The kind of a file from its first bytes; a client's name and declared type are never consulted. */
export async function sniff(file: string): Promise<Sniffed> {
  const detected = await fileTypeFromFile(file);
  const family = detected ? ACCEPTED[detected.mime] : undefined;
  if (!detected || !family) throw unsupported();
  return { family, mime: detected.mime };
}
