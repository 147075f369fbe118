#!/usr/bin/env node
// `pnpm agora <command>` (the bin pnpm falls back to when no script has that name, so pnpm prints no
// script banner): the bootstrap's `agora` command, which only installs or builds when something changed.
process.argv.splice(2, 0, 'agora');
await import('./bootstrap.mjs');
