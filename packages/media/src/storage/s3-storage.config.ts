import { envBoolean, envUrl } from '@agora/core';
import { z } from 'zod';

/** Access keys that hand their values to the SDK but print masked (config:show, logs). */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The S3 settings a service read from its environment (`config.media.s3`). */
export interface S3StorageConfig {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, Garage, R2…); AWS when undefined. */
  endpoint: string | undefined;
  /** `endpoint/bucket/key` addressing instead of `bucket.endpoint/key`. */
  forcePathStyle: boolean;
  credentials: S3Credentials;
  /** Prepended to every object key, so one bucket can hold several services or instances. */
  prefix: string | undefined;
  /** `S3_PROTOCOL://S3_ALIAS_HOST`: files are linked there (a CDN, a public bucket), not through the app. */
  aliasUrl: string | undefined;
}

/**
 * The zod shape of the S3 variables, named as Mastodon names them; an app spreads it into its schema
 * and calls `checkS3StorageEnv` from its `superRefine`. Storage stays on disk unless `S3_ENABLED=true`.
 */
export function s3StorageEnv() {
  return {
    S3_ENABLED: envBoolean(false),
    S3_BUCKET: z.string().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ENDPOINT: envUrl().optional(),
    // Unset: path style with S3_ENDPOINT (most S3-compatible servers need it), virtual hosts on AWS.
    S3_FORCE_PATH_STYLE: envBoolean(false).optional(),
    S3_PROTOCOL: z.enum(['https', 'http']).default('https'),
    S3_ALIAS_HOST: z
      .string()
      .refine((value) => !value.includes('://') && URL.canParse(`https://${value}`), {
        message: 'expected a host name and optional path without a scheme, like files.example.com',
      })
      .optional(),
    S3_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/?$/, 'expected path segments of letters, digits, - and _')
      .optional(),
    AWS_ACCESS_KEY_ID: z.string().optional(),
    AWS_SECRET_ACCESS_KEY: z.string().optional(),
  };
}

export type S3StorageEnv = z.output<z.ZodObject<ReturnType<typeof s3StorageEnv>>>;

const REQUIRED_WHEN_ENABLED = ['S3_BUCKET', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

/** Reports what `S3_ENABLED=true` still needs, one issue per missing variable. */
export function checkS3StorageEnv(env: S3StorageEnv, issues: z.RefinementCtx): void {
  if (!env.S3_ENABLED) return;
  for (const name of REQUIRED_WHEN_ENABLED) {
    if (env[name] === undefined) {
      issues.addIssue({ code: 'custom', path: [name], message: 'is required when S3_ENABLED=true' });
    }
  }
}

/** The S3 settings the environment asks for, or null for disk storage. Run `checkS3StorageEnv` first. */
export function toS3StorageConfig(env: S3StorageEnv): S3StorageConfig | null {
  if (!env.S3_ENABLED) return null;
  const { S3_BUCKET: bucket, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if (bucket === undefined || accessKeyId === undefined || secretAccessKey === undefined) {
    throw new Error('S3 settings were not checked (checkS3StorageEnv)');
  }
  return {
    bucket,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT?.replace(/\/+$/, ''),
    forcePathStyle: env.S3_FORCE_PATH_STYLE ?? env.S3_ENDPOINT !== undefined,
    credentials: {
      accessKeyId,
      secretAccessKey,
      // The config is printed (config:show) and may be logged; the secret must not be.
      toJSON: () => ({ accessKeyId, secretAccessKey: '*****' }),
    } as S3Credentials,
    prefix: env.S3_PREFIX?.replace(/\/+$/, ''),
    aliasUrl: env.S3_ALIAS_HOST ? `${env.S3_PROTOCOL}://${env.S3_ALIAS_HOST.replace(/\/+$/, '')}` : undefined,
  };
}
