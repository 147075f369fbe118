import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';
import { LIST_MERGE_JOB } from './list.service.js';

// issue 15 §7, §8: what a client's first screens call, through masto.js (not-shown.md §3.1).
describe('polls, lists, markers, scheduled statuses and conversations through masto.js (issue 15 §7, §8; not-shown.md §3.1)', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('lists-clients');
    app = await registerApp(t.url, 'Lists clients test');
  });
  after(async () => {
    await t?.stop();
  });

  it('masto.js: posts a poll and votes on it, builds a list and reads its timeline, saves markers, schedules a post, reads a conversation', async () => {
    const alice = await signedInAccount(t, app, 'alice');
    const bob = await signedInAccount(t, app, 'bob');
    await t.ctx.federation.follows.follow(alice.id, bob.id, { accepted: true });
    await t.ctx.queue.drain([HOME_MERGE_JOB]);
    const asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const asBob = createRestAPIClient({ url: t.url, accessToken: bob.token });

    // Polls.
    const withPoll = await asBob.v1.statuses.create({
      status: 'Which day?',
      poll: { options: ['Monday', 'Friday'], expiresIn: 86_400, multiple: true },
    });
    expect(withPoll.poll?.options.map((o) => o.title)).to.deep.equal(['Monday', 'Friday']);
    const pollId = withPoll.poll!.id;
    const voted = await asAlice.v1.polls.$select(pollId).votes.create({ choices: [0, 1] });
    expect(voted.votesCount).to.equal(2);
    expect(voted.votersCount).to.equal(1);
    expect(voted.ownVotes).to.deep.equal([0, 1]);
    const again = await asAlice.v1.polls.$select(pollId).fetch();
    expect(again.voted).to.equal(true);
    const refused = await asBob.v1.polls
      .$select(pollId)
      .votes.create({ choices: [0] })
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(Error);
    expect(String((refused as Error).message)).to.match(/cannot vote in your own polls/);

    // Lists.
    const list = await asAlice.v1.lists.create({ title: 'Bob and co' });
    expect(list).to.include({ title: 'Bob and co', repliesPolicy: 'list', exclusive: false });
    await asAlice.v1.lists.$select(list.id).accounts.create({ accountIds: [bob.id] });
    await t.ctx.queue.drain([LIST_MERGE_JOB]);
    const members = await asAlice.v1.lists.$select(list.id).accounts.list();
    expect(members.map((a) => a.id)).to.deep.equal([bob.id]);
    const fresh = await asBob.v1.statuses.create({ status: 'For my listeners' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const timeline = await asAlice.v1.timelines.list.$select(list.id).list({ limit: 10 });
    expect(timeline.map((s) => s.id)).to.deep.equal([fresh.id, withPoll.id]);
    // The poll travels with its status, with alice's votes.
    expect(timeline[1]!.poll?.ownVotes).to.deep.equal([0, 1]);
    const holding = await asAlice.v1.accounts.$select(bob.id).lists.list();
    expect(holding.map((l) => l.id)).to.deep.equal([list.id]);
    const renamed = await asAlice.v1.lists.$select(list.id).update({ title: 'Bob' });
    expect(renamed.title).to.equal('Bob');
    const all = await asAlice.v1.lists.list();
    expect(all.map((l) => l.title)).to.deep.equal(['Bob']);

    // Markers.
    const saved = await asAlice.v1.markers.create({ home: { lastReadId: fresh.id } });
    expect(saved.home?.lastReadId).to.equal(fresh.id);
    const markers = await asAlice.v1.markers.fetch({ timeline: ['home', 'notifications'] });
    expect(markers.home?.lastReadId).to.equal(fresh.id);
    expect(markers.notifications).to.equal(undefined);

    // Scheduled statuses.
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await asAlice.v1.statuses.create({ status: 'An hour from now', scheduledAt: at });
    expect(scheduled).to.include({ scheduledAt: at });
    const pending = await asAlice.v1.scheduledStatuses.list();
    expect(pending.map((s) => s.id)).to.deep.equal([scheduled.id]);
    await asAlice.v1.scheduledStatuses.$select(scheduled.id).remove();
    expect(await asAlice.v1.scheduledStatuses.list()).to.deep.equal([]);

    // Direct conversations.
    const secret = await asBob.v1.statuses.create({ status: '@alice between us', visibility: 'direct' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const [conversation] = await asAlice.v1.conversations.list();
    expect(conversation).to.deep.include({ unread: true });
    expect(conversation!.lastStatus?.id).to.equal(secret.id);
    expect(conversation!.accounts.map((a) => a.id)).to.deep.equal([bob.id]);
    const read = await asAlice.v1.conversations.$select(conversation!.id).read();
    expect(read.unread).to.equal(false);
    await asAlice.v1.conversations.$select(conversation!.id).remove();
    expect(await asAlice.v1.conversations.list()).to.deep.equal([]);

    await asAlice.v1.lists.$select(list.id).remove();
    expect(await asAlice.v1.lists.list()).to.deep.equal([]);
  });
});
