import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventsConfig } from '../../config/config.js';

/** Where a generated secret is kept, so tokens survive restarts of a development instance. */
export function jwtSecretFile(dataDir: string): string {
  return join(dataDir, 'secrets', 'events-jwt-secret');
}

/**
 * The secret that signs JWT pairs: JWT_SECRET, or (outside production, where config requires it) one
 * generated once and kept, readable by the owner only, in the data folder. Called at boot.
 */
export async function resolveJwtSecret(config: EventsConfig): Promise<string> {
  if (config.auth.jwtSecret !== undefined) return config.auth.jwtSecret;
  if (config.nodeEnv === 'production') throw new Error('JWT_SECRET is required in production');
  const file = jwtSecretFile(config.dataDir);
  await mkdir(join(config.dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes boot at once, only one writes and both then read the same secret.
    await writeFile(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(file, 'utf8')).trim();
  if (Buffer.byteLength(secret) < 32) throw new Error(`${file} holds a secret shorter than 32 bytes`);
  return secret;
}
