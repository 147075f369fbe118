#!/usr/bin/env node
// The entry behind `npm start`, `npm test`, `npm run bench` and `npm run agora`: it needs only Node
// and npm. It provides the pinned pnpm (installed into .data/tools when the machine has none),
// installs the workspace, builds what the command needs, then hands over to the real command.
// Plain JavaScript on purpose: it runs before any dependency exists.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = { ...process.env };
const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const isWindows = process.platform === 'win32';

function log(message) {
  process.stderr.write(`[agora] ${message}\n`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit', shell: isWindows, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function must(cmd, args, options) {
  const status = run(cmd, args, options);
  if (status !== 0) {
    log(`"${cmd} ${args.join(' ')}" failed (exit ${status})`);
    process.exit(status);
  }
}

function pnpmOnPath() {
  const result = spawnSync('pnpm', ['--version'], { env, encoding: 'utf8', shell: isWindows });
  return result.status === 0 ? result.stdout.trim() : null;
}

function ensurePnpm() {
  if (pnpmOnPath() === pnpmVersion) return;
  const toolsDir = join(root, '.data', 'tools');
  const binDir = join(toolsDir, 'node_modules', '.bin');
  env.PATH = `${binDir}${delimiter}${env.PATH ?? ''}`;
  if (pnpmOnPath() === pnpmVersion) return;
  log(`installing pnpm ${pnpmVersion} into .data/tools (no global install needed)`);
  must('npm', [
    'install',
    '--prefix',
    toolsDir,
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    `pnpm@${pnpmVersion}`,
  ]);
  if (pnpmOnPath() !== pnpmVersion) {
    log('pnpm could not be installed');
    process.exit(1);
  }
}

function install() {
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  must('pnpm', ['install', ...frozen, '--reporter=append-only']);
}

function portAnswers(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Where the test suites create their databases: TEST_DATABASE_URL when given; in CI the
 * PostgreSQL at 127.0.0.1:5432 when it answers; otherwise one embedded PostgreSQL for the run.
 */
async function provideTestDatabase() {
  if (env.TEST_DATABASE_URL) return async () => {};
  const ci = env.CI === 'true' || env.CI === '1';
  if (ci && (await portAnswers('127.0.0.1', 5432))) {
    env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
    log('tests use the PostgreSQL at 127.0.0.1:5432');
    return async () => {};
  }
  const db = await import(pathToFileURL(join(root, 'packages', 'db', 'dist', 'index.js')).href);
  const handle = await db.startEmbeddedPostgres({
    dataDir: join(root, '.data', 'test-postgres'),
    port: 54330,
  });
  env.TEST_DATABASE_URL = handle.adminUrl;
  log(`tests use an embedded PostgreSQL on port ${handle.port}`);
  return () => handle.stop();
}

function runForwardingSignals(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit', shell: isWindows });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1)));
  });
}

const [command, ...rest] = process.argv.slice(2);
ensurePnpm();
install();

switch (command) {
  case 'start': {
    must('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only']);
    process.exit(
      await runForwardingSignals('node', ['--import', 'tsx', 'tooling/src/dev/start.ts', ...rest]),
    );
    break;
  }
  case 'test': {
    must('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only']);
    const release = await provideTestDatabase();
    const resultsDir = join(root, '.data', 'test-results');
    rmSync(resultsDir, { recursive: true, force: true });
    env.AGORA_TEST_RESULTS = resultsDir;
    let status = run('pnpm', ['format:check']);
    if (status === 0) {
      status = run('pnpm', [
        'turbo',
        'run',
        'lint',
        'typecheck',
        'test',
        '--concurrency=2',
        '--output-logs=full',
      ]);
    }
    await release();
    const tally = { passes: 0, failures: 0, pending: 0 };
    for (const file of existsSync(resultsDir) ? readdirSync(resultsDir) : []) {
      const result = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
      for (const key of Object.keys(tally)) tally[key] += result[key];
    }
    if (status !== 0 && tally.failures === 0) tally.failures = 1; // lint/typecheck/format failed: never report green
    process.stdout.write(`\n${tally.passes} passed, ${tally.failures} failed, ${tally.pending} skipped\n`);
    process.exit(status);
    break;
  }
  case 'bench': {
    must('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only']);
    process.exit(run('pnpm', ['--filter', '@agora/tooling', 'bench', ...rest]));
    break;
  }
  case 'agora': {
    must('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only']);
    process.exit(run('node', ['--import', 'tsx', 'tooling/src/cli/cli.ts', ...rest]));
    break;
  }
  default:
    log(`unknown command "${command ?? ''}" (expected start, test, bench or agora)`);
    process.exit(2);
}
