import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withClient } from '../database.admin.js';
import { ensureDatabase } from '../database.admin.js';
import { openDatabase } from '../open-database.js';
import {
  isRunning,
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from './embedded-postgres.launcher.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

/** Bounded wait for a process we signalled to finish exiting. */
async function waitUntilGone(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const notes = async (handle: EmbeddedPostgresHandle) =>
  withClient(
    handle.url('agora_demo'),
    async (client) => (await client.query('SELECT note FROM notes ORDER BY note')).rows,
  );

describe('startEmbeddedPostgres', function () {
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  let port: number;
  const started: EmbeddedPostgresHandle[] = [];
  const start = async (onPort = port) => {
    const handle = await startEmbeddedPostgres({ dataDir, port: onPort });
    started.push(handle);
    return handle;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agora-embedded-test-'));
    dataDir = join(root, 'postgres');
    port = await freePort();
  });
  after(async () => {
    for (const handle of started) await handle.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('creates a cluster on first use, shares a running one, keeps data across restarts and crashes', async () => {
    const first = await start();
    expect(first.startedHere).to.equal(true);
    expect(first.port).to.equal(port);
    await ensureDatabase(first.adminUrl, 'agora_demo');
    await withClient(first.url('agora_demo'), async (client) => {
      expect((await client.query('SHOW listen_addresses')).rows[0].listen_addresses).to.equal('127.0.0.1');
      await client.query('CREATE TABLE notes (note text)');
      await client.query("INSERT INTO notes VALUES ('before restart')");
    });

    // A second start while it runs joins it and leaves it running on stop().
    const second = await start();
    expect(second.startedHere).to.equal(false);
    await second.stop();
    expect(await notes(first)).to.deep.equal([{ note: 'before restart' }]);

    const elsewhere = await start(await freePort()).catch((error: Error) => error);
    expect((elsewhere as Error).message)
      .to.contain(`already running`)
      .and.contain(`port ${port}`);

    await first.stop();
    const refused = await withClient(first.adminUrl, async () => 'connected').catch(
      (error: { code?: string }) => error.code,
    );
    expect(refused).to.equal('ECONNREFUSED');

    const again = await start();
    expect(again.startedHere).to.equal(true);
    expect(await notes(again)).to.deep.equal([{ note: 'before restart' }]);
    await withClient(again.url('agora_demo'), (client) =>
      client.query("INSERT INTO notes VALUES ('before crash')"),
    );

    // kill -9 leaves a postmaster.pid naming a dead process behind; it must not block the next start.
    const crashed = await postmasterPid(dataDir);
    process.kill(crashed, 'SIGKILL');
    await waitUntilGone(crashed);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).to.equal(true);
    const recovered = await start();
    expect(recovered.startedHere).to.equal(true);
    expect(await notes(recovered)).to.deep.equal([{ note: 'before crash' }, { note: 'before restart' }]);
    await recovered.stop();
    expect(existsSync(join(dataDir, 'postmaster.pid'))).to.equal(false);
  });

  it('says clearly when another program holds the port', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const error = await start().catch((caught: Error) => caught);
      expect((error as Error).message)
        .to.contain(`Port ${port}`)
        .and.contain('in use by another program');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('starts despite a postmaster.pid whose pid now belongs to another program', async () => {
    // This test process is alive and is not PostgreSQL: what a recycled pid looks like.
    await writeFile(join(dataDir, 'postmaster.pid'), `${process.pid}\n${dataDir}\n0\n${port}\n\n127.0.0.1\n`);
    const handle = await start();
    expect(handle.startedHere).to.equal(true);
    expect(await postmasterPid(dataDir)).to.not.equal(process.pid);
    await handle.stop();
  });

  it('adopts a cluster whose starting process was killed, so that someone stops it', async () => {
    const launcher = new URL('./embedded-postgres.launcher.ts', import.meta.url).href;
    const script = `
      import { startEmbeddedPostgres } from ${JSON.stringify(launcher)};
      await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${port} });
      console.log('ready');
      setInterval(() => undefined, 60_000);
    `;
    const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      owner.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      owner.once('exit', (code) => reject(new Error(`the owner process exited early (${code})`)));
    });
    const orphan = await postmasterPid(dataDir);
    owner.kill('SIGKILL');
    await new Promise((resolve) => owner.once('exit', resolve));
    expect(isRunning(orphan)).to.equal(true);

    const adopted = await start();
    expect(adopted.startedHere).to.equal(true);
    expect(await notes(adopted)).to.have.length(2);
    await adopted.stop();
    expect(isRunning(orphan)).to.equal(false);
  });

  it('openDatabase: the given URL as is, else its database on the embedded cluster in <dataDir>/postgres', async () => {
    const given = await openDatabase({
      url: 'postgres://db.example/x',
      dataDir: root,
      embeddedPort: port,
      databaseName: 'unused',
    });
    expect(given.url).to.equal('postgres://db.example/x');
    expect(given.embedded).to.equal(null);
    await given.close();

    const opened = await openDatabase({ dataDir: root, embeddedPort: port, databaseName: 'agora_events' });
    expect(opened.embedded?.startedHere).to.equal(true);
    const name = await withClient(
      opened.url,
      async (client) => (await client.query('SELECT current_database() AS name')).rows[0].name,
    );
    expect(name).to.equal('agora_events');
    const joined = await openDatabase({ dataDir: root, embeddedPort: port, databaseName: 'agora_microblog' });
    expect(joined.embedded?.startedHere).to.equal(false);
    await joined.close();
    await opened.close();
    expect(existsSync(join(dataDir, 'postmaster.pid'))).to.equal(false);
  });
});
