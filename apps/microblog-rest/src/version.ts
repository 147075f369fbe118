import { readFileSync } from 'node:fs';

/** This server's own version, from its package.json (one level above both src/ and dist/). */
export const AGORA_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The Mastodon release whose client API we follow; clients gate features on it. */
export const MASTODON_COMPATIBLE_VERSION = '4.3.0';

/** `api_versions.mastodon` of that release (4.3 introduced the number, at 2). */
export const MASTODON_API_VERSION = 2;

/** Pleroma/Pixelfed convention: a plain Mastodon semver first, so version parsers keep working. */
export const INSTANCE_VERSION = `${MASTODON_COMPATIBLE_VERSION} (compatible; Agora ${AGORA_VERSION})`;
