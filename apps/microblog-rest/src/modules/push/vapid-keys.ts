import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import webpush from 'web-push';
import type { MicroblogConfig } from '../../config/config.js';

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url (what clients pass to `PushManager.subscribe`). */
  publicKey: string;
  /** Raw P-256 scalar, base64url. */
  privateKey: string;
}

/** Where a generated pair is kept: `<DATA_DIR>/secrets/microblog-vapid.json`, readable by the owner only. */
export function vapidKeysFile(dataDir: string): string {
  return join(dataDir, 'secrets', 'microblog-vapid.json');
}

/**
 * VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY, or a pair generated once and kept in the data folder, as the
 * secret key base is: subscriptions made against one key only accept pushes signed by it, so the
 * pair must outlive restarts. Processes that do not share a data folder must be given the pair.
 */
export async function resolveVapidKeys(config: MicroblogConfig): Promise<VapidKeys> {
  if (config.vapid !== null) return config.vapid;
  const file = vapidKeysFile(config.dataDir);
  await mkdir(join(config.dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes boot at once, only one writes and both then read the same pair.
    await writeFile(file, JSON.stringify(webpush.generateVAPIDKeys()), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stored = JSON.parse(await readFile(file, 'utf8')) as Partial<VapidKeys>;
  if (typeof stored.publicKey !== 'string' || typeof stored.privateKey !== 'string') {
    throw new Error(`${file} does not hold a VAPID key pair`);
  }
  return { publicKey: stored.publicKey, privateKey: stored.privateKey };
}
