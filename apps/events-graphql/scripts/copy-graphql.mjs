// The build copies each module's SDL next to its compiled code: dist/ loads its schema like src/ does.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const file of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.graphql')) continue;
  mkdirSync(dirname(join(root, 'dist', file)), { recursive: true });
  copyFileSync(join(root, 'src', file), join(root, 'dist', file));
}
