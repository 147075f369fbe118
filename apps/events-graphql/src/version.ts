import { readFileSync } from 'node:fs';

/** The service's version, from its package.json (one folder above both src/ and dist/). */
export function appVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? '0.0.0';
}
