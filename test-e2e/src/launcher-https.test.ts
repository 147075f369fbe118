import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@agora/db/testing';
import {
  CHEAP_PASSWORDS,
  freePort,
  LAUNCHER_SCRIPT,
  runScript,
  templates,
  type RunningProcess,
} from './processes.js';

const CLI = 'tooling/src/cli/cli.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over https that trusts only `ca` (as a machine that trusted the local CA). */
function httpsCall(
  url: string,
  ca: Buffer,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, ca }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

// Issue 15 §8: `HTTPS=1 npm start` serves both services over https with a local CA's certificate;
// their links say https, and they federate with each other over https trusting that CA.
describe('HTTPS=1 npm start: both services over https with a local CA', function () {
  this.timeout(180_000);
  let dataDir: string;
  let eventsDb: TestDatabase;
  let microblogDb: TestDatabase;
  let launcher: RunningProcess;
  let eventsPort: number;
  let microblogPort: number;
  let ca: Buffer;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agora-e2e-https-'));
    eventsDb = await createTestDatabase('e2e_https_events', templates.events);
    microblogDb = await createTestDatabase('e2e_https_microblog', templates.microblog);
    [eventsPort, microblogPort] = [await freePort(), await freePort()];
    const env = {
      ...CHEAP_PASSWORDS,
      EVENTS_DATABASE_URL: eventsDb.url,
      MICROBLOG_DATABASE_URL: microblogDb.url,
      EVENTS_PORT: String(eventsPort),
      MICROBLOG_PORT: String(microblogPort),
      DATA_DIR: dataDir,
      // The admin tool too: accounts it writes get https ids.
      HTTPS: '1',
    };
    // Accounts on both sides, written by the admin tool before the services start.
    for (const [service, email, username] of [
      ['events', 'organizer@example.org', 'organizer'],
      ['microblog', 'reader@example.org', 'reader'],
    ] as const) {
      const create = runScript(
        CLI,
        [
          'users:create',
          '--service',
          service,
          '--email',
          email,
          '--password',
          'correct horse battery',
          '--username',
          username,
          '--confirmed',
        ],
        env,
      );
      expect(await create.exited, create.output()).to.equal(0);
    }
    launcher = runScript(LAUNCHER_SCRIPT, [], { ...env, LOG_LEVEL: 'warn' });
    await launcher.waitFor('Press Ctrl-C to stop.');
    ca = await readFile(join(dataDir, 'tls', 'ca.pem'));
  });
  after(async () => {
    launcher?.child.kill('SIGINT');
    await launcher?.exited;
    await eventsDb?.drop();
    await microblogDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the local CA and prints https addresses', () => {
    expect(launcher.output()).to.contain(
      `HTTPS        certificate of the local CA ${join(dataDir, 'tls', 'ca.pem')}`,
    );
    expect(launcher.output()).to.contain(`https://localhost:${microblogPort}/api/v1/instance`);
    expect(launcher.output()).to.contain(`https://localhost:${eventsPort}/api`);
  });

  it('serves host-meta, WebFinger and the instance over https, with https links', async () => {
    const base = `https://localhost:${microblogPort}`;
    const hostMeta = await httpsCall(`${base}/.well-known/host-meta`, ca);
    expect(hostMeta.status).to.equal(200);
    expect(hostMeta.body).to.contain(`template="${base}/.well-known/webfinger?resource={uri}"`);

    const finger = await httpsCall(
      `${base}/.well-known/webfinger?resource=${encodeURIComponent(`acct:reader@localhost:${microblogPort}`)}`,
      ca,
    );
    expect(finger.status).to.equal(200);
    expect(JSON.parse(finger.body).links).to.deep.include({
      rel: 'self',
      type: 'application/activity+json',
      href: `${base}/users/reader`,
    });

    const instance = JSON.parse((await httpsCall(`${base}/api/v1/instance`, ca)).body) as {
      uri: string;
      urls: { streaming_api: string };
      stats: { user_count: number };
    };
    expect(instance.uri).to.equal(`localhost:${microblogPort}`);
    expect(instance.urls.streaming_api).to.equal(`wss://localhost:${microblogPort}`);
    expect(instance.stats.user_count).to.equal(1);
    const v2 = JSON.parse((await httpsCall(`${base}/api/v2/instance`, ca)).body) as {
      thumbnail: { url: string };
    };
    expect(v2.thumbnail.url).to.match(new RegExp(`^${base}/`));

    const eventsMeta = await httpsCall(`https://127.0.0.1:${eventsPort}/.well-known/host-meta`, ca);
    expect(eventsMeta.body).to.contain(`https://localhost:${eventsPort}/.well-known/webfinger`);
  });

  it('a microblog account follows an events profile across the two services over https', async () => {
    const basic = `Basic ${Buffer.from('reader@example.org:correct horse battery').toString('base64')}`;
    const followed = await httpsCall(`https://localhost:${microblogPort}/api/follows`, ca, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: `uri=${encodeURIComponent(`organizer@localhost:${eventsPort}`)}`,
    });
    // WebFinger and the actor document came from the events service over https.
    expect(followed.status, followed.body + launcher.output()).to.equal(200);
    const account = JSON.parse(followed.body) as { id: string; acct: string; url: string };
    expect(account.acct).to.equal(`organizer@localhost:${eventsPort}`);
    expect(account.url).to.match(new RegExp(`^https://localhost:${eventsPort}/`));

    // The events service fetched the reader's key over https and its Accept came back the same way.
    const deadline = Date.now() + 60_000;
    let following = false;
    while (!following && Date.now() < deadline) {
      const answer = await httpsCall(
        `https://localhost:${microblogPort}/api/accounts/${account.id}/followers`,
        ca,
        {
          headers: { authorization: basic },
        },
      );
      following = (JSON.parse(answer.body) as Array<{ acct: string }>).some((a) => a.acct === 'reader');
      if (!following) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(following, launcher.output()).to.equal(true);
  });
});
