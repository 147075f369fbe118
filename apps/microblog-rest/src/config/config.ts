import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  addressSafelist,
  checkPasswordHashCostEnv,
  passwordHashCostEnv,
  passwordHashParams,
  type PasswordHashParams,
} from '@agora/auth';
import {
  baseServiceEnv,
  envBoolean,
  envInt,
  envList,
  envUrl,
  loadConfig as loadEnv,
  toBaseServiceConfig,
  type BaseServiceConfig,
  type Env,
} from '@agora/core';
import {
  checkS3StorageEnv,
  MASTODON_MEDIA_LIMITS,
  s3StorageEnv,
  SUPPORTED_MIME_TYPES,
  toS3StorageConfig,
  type MediaLimits,
  type S3StorageConfig,
} from '@agora/media';

/** Limits clients read from the instance document and the modules enforce (Mastodon's defaults). */
export interface MicroblogLimits {
  accounts: {
    maxDisplayNameLength: number;
    maxNoteLength: number;
    maxFeaturedTags: number;
    maxPinnedStatuses: number;
    maxProfileFields: number;
    profileFieldNameLimit: number;
    profileFieldValueLimit: number;
    maxAvatarDescriptionLength: number;
    maxHeaderDescriptionLength: number;
  };
  statuses: { maxCharacters: number; maxMediaAttachments: number; charactersReservedPerUrl: number };
  mediaAttachments: {
    supportedMimeTypes: string[];
    imageSizeLimit: number;
    imageMatrixLimit: number;
    videoSizeLimit: number;
    videoFrameRateLimit: number;
    videoMatrixLimit: number;
    descriptionLimit: number;
  };
  polls: { maxOptions: number; maxCharactersPerOption: number; minExpiration: number; maxExpiration: number };
}

/** What the instance says about itself before stored settings (admin edits) are laid over it. */
export interface InstanceDefaults {
  title: string;
  shortDescription: string;
  /** The longer site description (HTML paragraph), v1 `description`. */
  description: string;
  contactEmail: string;
  registrationsOpen: boolean;
  approvalRequired: boolean;
  closedRegistrationsMessage: string | null;
  /** ISO 639-1 codes. */
  languages: string[];
}

export interface MicroblogConfig extends BaseServiceConfig {
  service: 'microblog';
  instance: InstanceDefaults & {
    /** ws(s):// base URL of the streaming API. */
    streamingUrl: string;
    /** Where the source code of this server is published (AGPL); null until configured. */
    sourceUrl: string | null;
    /** Public URL of the instance banner; null serves the built-in one. */
    thumbnailUrl: string | null;
    /** How long usage counters in the cached instance documents may be old. */
    statsTtlSeconds: number;
  };
  limits: MicroblogLimits;
  rateLimits: {
    /** Addresses or CIDR ranges the API-wide limits never apply to (e.g. a benchmark on loopback). */
    safelist: string[];
  };
  oauth: {
    /** Whether POST /oauth/token accepts `grant_type=password` (the seed's clients use it). */
    passwordGrant: boolean;
  };
  sessions: {
    /** Sign-in sessions one account keeps; beyond it the oldest is dropped (Mastodon: 10). */
    maxActivations: number;
  };
  media: {
    /** Where uploaded files are kept on disk (served under `/system`). */
    dir: string;
    /** Files in an S3-compatible bucket instead (S3_ENABLED=true); null keeps them in `dir`. */
    s3: S3StorageConfig | null;
    /** Uploads in transit and waiting for the worker; never served. */
    incomingDir: string;
    limits: MediaLimits;
    /** ffmpeg for video and gifv: undefined = `ffmpeg` on PATH if it runs, null = none. */
    ffmpegPath: string | null | undefined;
  };
  secrets: {
    /** Derives the key that encrypts stored access tokens; unset outside production, one is generated. */
    keyBase: string | undefined;
  };
  /**
   * Web Push's VAPID key pair (P-256, base64url: the public key uncompressed, the private key raw);
   * unset, a pair is generated once and kept in the data folder (modules/push/vapid-keys.ts).
   */
  vapid: { publicKey: string; privateKey: string } | null;
  /** Argon2id cost of password hashes (`PASSWORD_HASH_COST`; cheap only for test servers). */
  passwordHash: Readonly<PasswordHashParams>;
}

// ISO 639-1: two lowercase letters.
const languageList = envList(['en']).pipe(
  z.array(z.string().regex(/^[a-z]{2}$/, 'expected ISO 639-1 codes like "en,fr"')).min(1),
);

const schema = z
  .object({
    ...baseServiceEnv({ port: 3000 }),
    INSTANCE_TITLE: z.string().default('Agora'),
    INSTANCE_SHORT_DESCRIPTION: z.string().default('A federated microblogging server.'),
    INSTANCE_DESCRIPTION: z.string().default(''),
    CONTACT_EMAIL: z.email().optional(),
    REGISTRATIONS_OPEN: envBoolean(true),
    APPROVAL_REQUIRED: envBoolean(false),
    CLOSED_REGISTRATIONS_MESSAGE: z.string().optional(),
    INSTANCE_LANGUAGES: languageList,
    STREAMING_URL: envUrl()
      .refine((value) => /^wss?:\/\//.test(value), { message: 'expected a ws:// or wss:// URL' })
      .optional(),
    SOURCE_URL: envUrl().optional(),
    INSTANCE_THUMBNAIL_URL: envUrl().optional(),
    INSTANCE_STATS_TTL_SECONDS: envInt(60, { min: 1, max: 86_400 }),
    MAX_STATUS_CHARACTERS: envInt(500, { min: 1, max: 100_000 }),
    MAX_MEDIA_ATTACHMENTS: envInt(4, { min: 0, max: 100 }),
    MAX_POLL_OPTIONS: envInt(4, { min: 2, max: 100 }),
    MAX_POLL_OPTION_CHARACTERS: envInt(50, { min: 1, max: 10_000 }),
    MEDIA_IMAGE_SIZE_LIMIT: envInt(16 * 1024 * 1024, { min: 1 }),
    MEDIA_VIDEO_SIZE_LIMIT: envInt(99 * 1024 * 1024, { min: 1 }),
    MEDIA_DIR: z.string().optional(),
    ...s3StorageEnv(),
    // A path, or "none" to turn video and gifv off.
    FFMPEG_PATH: z.string().min(1).optional(),
    OAUTH_PASSWORD_GRANT: envBoolean(true),
    // Comma-separated; empty by default (Mastodon safelists loopback, but then tests would see no limit).
    RATE_LIMIT_SAFELIST: envList([]).refine(
      (entries) => {
        try {
          addressSafelist(entries);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must list IP addresses or CIDR ranges' },
    ),
    ...passwordHashCostEnv(),
    MAX_SESSION_ACTIVATIONS: envInt(10, { min: 1, max: 1000 }),
    VAPID_PUBLIC_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{87}$/, 'expected an uncompressed P-256 public key in base64url')
      .optional(),
    VAPID_PRIVATE_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'expected a raw P-256 private key in base64url')
      .optional(),
    SECRET_KEY_BASE: z
      .string()
      .optional()
      .refine((secret) => secret === undefined || Buffer.byteLength(secret) >= 32, {
        message: 'must be at least 32 bytes long',
      }),
  })
  .superRefine((env, issues) => {
    if (env.NODE_ENV === 'production' && env.SECRET_KEY_BASE === undefined) {
      issues.addIssue({ code: 'custom', path: ['SECRET_KEY_BASE'], message: 'is required in production' });
    }
    if ((env.VAPID_PUBLIC_KEY === undefined) !== (env.VAPID_PRIVATE_KEY === undefined)) {
      issues.addIssue({ code: 'custom', path: ['VAPID_PRIVATE_KEY'], message: 'VAPID keys go in pairs' });
    }
    checkS3StorageEnv(env, issues);
    checkPasswordHashCostEnv(env, issues);
  })
  .transform((env): MicroblogConfig => {
    const base = toBaseServiceConfig(env, 'microblog', 'agora_microblog');
    const publicUrl = new URL(base.http.publicUrl);
    return {
      ...base,
      service: 'microblog',
      instance: {
        title: env.INSTANCE_TITLE,
        shortDescription: env.INSTANCE_SHORT_DESCRIPTION,
        description: env.INSTANCE_DESCRIPTION,
        contactEmail: env.CONTACT_EMAIL ?? '',
        registrationsOpen: env.REGISTRATIONS_OPEN,
        approvalRequired: env.APPROVAL_REQUIRED,
        closedRegistrationsMessage: env.CLOSED_REGISTRATIONS_MESSAGE ?? null,
        languages: env.INSTANCE_LANGUAGES,
        // The streaming API is served by this same process and host unless told otherwise.
        streamingUrl: (
          env.STREAMING_URL ?? `${publicUrl.protocol === 'https:' ? 'wss' : 'ws'}://${publicUrl.host}`
        ).replace(/\/+$/, ''),
        sourceUrl: env.SOURCE_URL ?? null,
        thumbnailUrl: env.INSTANCE_THUMBNAIL_URL ?? null,
        statsTtlSeconds: env.INSTANCE_STATS_TTL_SECONDS,
      },
      limits: {
        accounts: {
          maxDisplayNameLength: 30,
          maxNoteLength: 500,
          maxFeaturedTags: 10,
          maxPinnedStatuses: 5,
          maxProfileFields: 4,
          profileFieldNameLimit: 255,
          profileFieldValueLimit: 255,
          maxAvatarDescriptionLength: 1500,
          maxHeaderDescriptionLength: 1500,
        },
        statuses: {
          maxCharacters: env.MAX_STATUS_CHARACTERS,
          maxMediaAttachments: env.MAX_MEDIA_ATTACHMENTS,
          // Every URL counts as this many characters, whatever its length (Mastodon's rule).
          charactersReservedPerUrl: 23,
        },
        mediaAttachments: {
          // What the media pipeline accepts (sniffed from the bytes).
          supportedMimeTypes: [...SUPPORTED_MIME_TYPES],
          imageSizeLimit: env.MEDIA_IMAGE_SIZE_LIMIT,
          imageMatrixLimit: 33_177_600,
          videoSizeLimit: env.MEDIA_VIDEO_SIZE_LIMIT,
          videoFrameRateLimit: 120,
          videoMatrixLimit: 8_294_400,
          descriptionLimit: 1500,
        },
        polls: {
          maxOptions: env.MAX_POLL_OPTIONS,
          maxCharactersPerOption: env.MAX_POLL_OPTION_CHARACTERS,
          minExpiration: 300,
          maxExpiration: 2_629_746,
        },
      },
      rateLimits: { safelist: env.RATE_LIMIT_SAFELIST },
      oauth: { passwordGrant: env.OAUTH_PASSWORD_GRANT },
      sessions: { maxActivations: env.MAX_SESSION_ACTIVATIONS },
      media: {
        dir: resolve(env.MEDIA_DIR ?? join(base.dataDir, 'media', 'microblog')),
        s3: toS3StorageConfig(env),
        incomingDir: join(base.dataDir, 'media', 'microblog-incoming'),
        limits: {
          ...MASTODON_MEDIA_LIMITS,
          imageBytes: env.MEDIA_IMAGE_SIZE_LIMIT,
          videoBytes: env.MEDIA_VIDEO_SIZE_LIMIT,
        },
        ffmpegPath: env.FFMPEG_PATH === 'none' ? null : env.FFMPEG_PATH,
      },
      secrets: { keyBase: env.SECRET_KEY_BASE },
      vapid:
        env.VAPID_PUBLIC_KEY !== undefined && env.VAPID_PRIVATE_KEY !== undefined
          ? { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY }
          : null,
      passwordHash: passwordHashParams(env.PASSWORD_HASH_COST),
    };
  });

/** Reads the microblog service's configuration; every problem is reported at once as a ConfigError. */
export function loadConfig(env?: Env): MicroblogConfig {
  return loadEnv(schema, env);
}
