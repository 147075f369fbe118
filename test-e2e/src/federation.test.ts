import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TemplateSpec, type TestDatabase, freePort } from '@agora/db/testing';
import * as events from '@agora/events-graphql';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import * as microblog from '@agora/microblog-rest';
import { CHEAP_PASSWORDS, templates } from './processes.js';

interface Running<C> {
  url: string;
  ctx: C;
  stop(): Promise<void>;
}

/** One service in this process on its own port and database; the two talk over real HTTP. */
async function boot<C extends { close(): Promise<void> }>(
  label: string,
  template: TemplateSpec,
  start: (
    env: Record<string, string>,
  ) => Promise<{ ctx: C; server: { start(): Promise<{ url: string }>; stop(): Promise<void> } }>,
  allow: string,
  port: number,
): Promise<Running<C>> {
  const db: TestDatabase = await createTestDatabase(label, template);
  const dataDir = await mkdtemp(join(tmpdir(), `agora-e2e-${label}-`));
  const { ctx, server } = await start({
    ...CHEAP_PASSWORDS,
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    FEDERATION_ALLOW_PRIVATE_HOSTS: allow,
  });
  const { url } = await server.start();
  return {
    url,
    ctx,
    async stop() {
      await server.stop();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the two services federate with each other', function () {
  this.timeout(120_000);
  let eventsSide: Running<events.AppContext>;
  let microblogSide: Running<microblog.AppContext>;

  before(async () => {
    const [eventsPort, microblogPort] = [await freePort(), await freePort()];
    eventsSide = await boot(
      'e2e_fed_events',
      templates.events,
      async (env) => {
        const ctx = await events.AppContext.fromConfig(events.loadConfig(env));
        return { ctx, server: events.createServer(ctx) };
      },
      `127.0.0.1:${microblogPort}`,
      eventsPort,
    );
    microblogSide = await boot(
      'e2e_fed_microblog',
      templates.microblog,
      async (env) => {
        const ctx = await microblog.AppContext.fromConfig(microblog.loadConfig(env));
        return { ctx, server: microblog.createServer(ctx) };
      },
      `127.0.0.1:${eventsPort}`,
      microblogPort,
    );
  });
  after(async () => {
    await microblogSide?.stop();
    await eventsSide?.stop();
  });

  /** Runs both services' inbox and delivery jobs until neither has any left. */
  async function settle(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      await microblogSide.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
      await eventsSide.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
    }
  }

  it('a microblog account follows an events profile: Follow, Accept, counters on both sides, then Undo', async () => {
    const created = await events.adminCreateUser(eventsSide.ctx, {
      email: 'organizer@example.org',
      password: 'correct horse',
      username: 'organizer',
      confirmed: true,
    });
    const { accountId } = await microblog.adminCreateUser(microblogSide.ctx, {
      email: 'reader@example.org',
      password: 'correct horse',
      username: 'reader',
      confirmed: true,
    });
    const organizerUri = `${eventsSide.url}/@organizer`;

    const follow = await microblogSide.ctx.federation.follow(accountId!, organizerUri);
    expect(follow.accepted).to.equal(false);
    await settle();

    // The events side knows the reader (fetched over HTTP, key verified) as a follower…
    const reader = await eventsSide.ctx.actors.findByUri(`${microblogSide.url}/users/reader`);
    expect(reader).to.include({ local: false, username: 'reader' });
    const organizer = await eventsSide.ctx.actors.findById(created.profileId!);
    expect(organizer?.followersCount).to.equal(1);
    // …and its Accept reached the microblog, which now counts the follow as accepted.
    const organizerThere = await microblogSide.ctx.actors.findByUri(organizerUri);
    expect(
      (await microblogSide.ctx.federation.follows.find(accountId!, organizerThere!.id))?.accepted,
    ).to.equal(true);
    expect((await microblogSide.ctx.actors.findById(accountId!))?.followingCount).to.equal(1);

    expect(await microblogSide.ctx.federation.unfollow(accountId!, organizerThere!.id)).to.equal(true);
    await settle();
    expect((await eventsSide.ctx.actors.findById(created.profileId!))?.followersCount).to.equal(0);
  });
});
