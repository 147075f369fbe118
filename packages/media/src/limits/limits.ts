import { BadInput, envInt } from '@agora/core';

/** Byte limits per kind of upload (the events reference's defaults: 10 MiB, 2 MiB avatars, 4 MiB banners). */
export interface UploadLimits {
  default: number;
  avatar: number;
  banner: number;
}

export type UploadKind = keyof UploadLimits;

export const DEFAULT_UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({
  default: 10_485_760,
  avatar: 2_097_152,
  banner: 4_194_304,
});

/** The zod shape of the upload-limit variables; an app spreads it into its config schema. */
export function uploadLimitsEnv() {
  return {
    UPLOAD_LIMIT_BYTES: envInt(DEFAULT_UPLOAD_LIMITS.default, { min: 1 }),
    AVATAR_UPLOAD_LIMIT_BYTES: envInt(DEFAULT_UPLOAD_LIMITS.avatar, { min: 1 }),
    BANNER_UPLOAD_LIMIT_BYTES: envInt(DEFAULT_UPLOAD_LIMITS.banner, { min: 1 }),
  };
}

export function toUploadLimits(env: {
  UPLOAD_LIMIT_BYTES: number;
  AVATAR_UPLOAD_LIMIT_BYTES: number;
  BANNER_UPLOAD_LIMIT_BYTES: number;
}): UploadLimits {
  return {
    default: env.UPLOAD_LIMIT_BYTES,
    avatar: env.AVATAR_UPLOAD_LIMIT_BYTES,
    banner: env.BANNER_UPLOAD_LIMIT_BYTES,
  };
}

/** Refuses an upload larger than its kind allows, naming the limit. */
export function assertUploadSize(limits: UploadLimits, kind: UploadKind, bytes: number): void {
  const limit = limits[kind];
  if (bytes > limit) {
    throw new BadInput(
      `The file is too large: ${bytes} bytes, the limit for ${kind} uploads is ${limit} bytes`,
      {
        code: 'file_too_large',
        fields: { file: [`must be at most ${limit} bytes`] },
      },
    );
  }
}
