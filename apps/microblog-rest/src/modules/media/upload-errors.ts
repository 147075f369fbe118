import { BadInput, Internal, isAppError } from '@agora/core';
import { MediaTooLarge } from '@agora/media';

/** The attribute a Rails validation message names ("File file size must be less than 16 MB"). */
export type UploadAttribute = 'File' | 'Thumbnail' | 'Avatar' | 'Header';

/** Mastodon's answer when processing failed (GET /api/v1/media/:id of a failed upload). */
export const PROCESSING_FAILED = 'Error processing thumbnail for uploaded media';

/** Rails' `number_to_human_size`: 1024-based, three significant digits, "16 MB". */
export function humanSize(bytes: number): string {
  const units = ['KB', 'MB', 'GB', 'TB'];
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  let value = bytes;
  let unit = 'Bytes';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${Number(value.toPrecision(3))} ${unit}`;
}

export function fileSizeError(attribute: UploadAttribute, limit: number): BadInput {
  return new BadInput(`Validation failed: ${attribute} file size must be less than ${humanSize(limit)}`);
}

export function blankFileError(attribute: UploadAttribute): BadInput {
  return new BadInput(`Validation failed: ${attribute} can't be blank`);
}

export function contentTypeError(attribute: UploadAttribute): BadInput {
  return new BadInput(`Validation failed: ${attribute} content type is invalid`);
}

/**
 * The pipeline's refusals in Mastodon's words (422 `{"error": "Validation failed: …"}`, no details);
 * anything unexpected becomes an Internal error (logged, never shown).
 */
export function toUploadError(error: unknown, attribute: UploadAttribute): Error {
  if (error instanceof MediaTooLarge) {
    if (error.unit === 'bytes') return fileSizeError(attribute, error.limit);
    return new BadInput(`Validation failed: ${attribute} ${lowerFirst(error.message)}`);
  }
  if (error instanceof BadInput) {
    if (error.code === 'unsupported_media_type') return contentTypeError(attribute);
    if (error.code === 'unprocessable_media') {
      return new BadInput('File type of uploaded media could not be verified');
    }
    return new BadInput(
      error.message.startsWith('Validation failed') ? error.message : `Validation failed: ${error.message}`,
    );
  }
  if (isAppError(error)) return error;
  return new Internal(PROCESSING_FAILED, { cause: error });
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
