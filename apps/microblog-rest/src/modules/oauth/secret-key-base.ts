import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MicroblogConfig } from '../../config/config.js';

/** Where a generated key base is kept, so stored tokens stay readable across restarts. */
export function secretKeyBaseFile(dataDir: string): string {
  return join(dataDir, 'secrets', 'microblog-secret');
}

/**
 * SECRET_KEY_BASE, or (outside production, where config requires it) one generated once and kept,
 * readable by the owner only, in the data folder, as Rails does in development. Called at boot.
 */
export async function resolveSecretKeyBase(config: MicroblogConfig): Promise<string> {
  if (config.secrets.keyBase !== undefined) return config.secrets.keyBase;
  if (config.nodeEnv === 'production') throw new Error('SECRET_KEY_BASE is required in production');
  const file = secretKeyBaseFile(config.dataDir);
  await mkdir(join(config.dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes boot at once, only one writes and both then read the same secret.
    await writeFile(file, randomBytes(64).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(file, 'utf8')).trim();
  if (Buffer.byteLength(secret) < 32) throw new Error(`${file} holds a secret shorter than 32 bytes`);
  return secret;
}
