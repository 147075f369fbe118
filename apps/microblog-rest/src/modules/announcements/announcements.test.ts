import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { Mastodon } from 'megalodon';
import { BadInput } from '@agora/core';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

// Every attribute of Mastodon's Announcement (3.1; issue 15 §8, not-shown.md §2.2 "announcements").
const ANNOUNCEMENT: Shape = {
  id: 'string',
  content: 'string',
  starts_at: 'string|null',
  ends_at: 'string|null',
  published: 'boolean',
  all_day: 'boolean',
  published_at: 'string',
  updated_at: 'string',
  read: 'boolean',
  mentions: 'array',
  statuses: 'array',
  tags: 'array',
  emojis: 'array',
  reactions: 'array',
};

type Signed = SeededAccount & { token: string };

describe('announcements (microblog, /api/v1/announcements)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  const masto = (account: Signed) => createRestAPIClient({ url: t.url, accessToken: account.token });
  const megalodon = (account: Signed) => new Mastodon(t.url, account.token);
  const list = async (account: Signed) =>
    (await rest<Json[]>(t.url, '/api/v1/announcements', { token: account.token })).body;

  before(async () => {
    t = await startTestServer('announcements');
    app = await registerApp(t.url, 'Announcements test');
    alice = await signedInAccount(t, app, 'alice');
    bob = await signedInAccount(t, app, 'bob');
  });
  after(async () => {
    await t?.stop();
  });

  it('answers an empty list when the administrators wrote none, and needs a signed-in user', async () => {
    expect(await masto(alice).v1.announcements.list()).to.deep.equal([]);
    expect((await megalodon(bob).getInstanceAnnouncements()).data).to.deep.equal([]);
    const anonymous = await rest(t.url, '/api/v1/announcements');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body).to.have.property('error').that.is.a('string');
  });

  it('lists the published, current announcements with their text as safe HTML and what it names', async () => {
    const posted = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: alice.token,
      json: { status: 'Release notes are out' },
    });
    const statusUrl = posted.body.url as string;
    const main = await t.ctx.announcements.create({
      text: `Maintenance tonight, ask @alice. #Agora <script>alert(1)</script>\nSee ${statusUrl}`,
    });
    const upcoming = await t.ctx.announcements.create({
      text: 'Meetup',
      startsAt: new Date(Date.now() + 86_400_000),
      endsAt: new Date(Date.now() + 2 * 86_400_000),
      allDay: true,
    });
    await t.ctx.announcements.create({ text: 'A draft nobody sees yet', published: false });
    await t.ctx.announcements.create({
      text: 'Over already',
      startsAt: new Date(Date.now() - 2 * 86_400_000),
      endsAt: new Date(Date.now() - 86_400_000),
    });

    const announcements = await list(alice);
    expect(announcements.map((a) => a.id)).to.deep.equal([main.id, upcoming.id]);
    for (const announcement of announcements) expectShape(announcement, ANNOUNCEMENT);
    const [first, second] = announcements as [Json, Json];
    expect(first.content).to.include('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.include('<script>');
    expect(first.content).to.include('class="u-url mention"').and.include('class="mention hashtag"');
    expect(first).to.deep.include({
      read: false,
      all_day: false,
      starts_at: null,
      ends_at: null,
      mentions: [{ id: alice.id, username: 'alice', url: `${t.url}/@alice`, acct: 'alice' }],
      statuses: [{ id: posted.body.id, url: statusUrl }],
      tags: [{ name: 'Agora', url: `${t.url}/tags/agora` }],
      emojis: [],
      reactions: [],
    });
    expect(second).to.include({ all_day: true, starts_at: upcoming.startsAt!.toISOString() });

    // megalodon and masto.js read the same list.
    const viaMegalodon = (await megalodon(bob).getInstanceAnnouncements()).data;
    expect(viaMegalodon.map((a) => a.id)).to.deep.equal([main.id, upcoming.id]);
    const [viaMasto] = await masto(bob).v1.announcements.list();
    expect(viaMasto).to.include({ id: main.id, allDay: false });
  });

  it('dismiss marks an announcement read for the caller only; reactions count per emoji with `me`', async () => {
    const [announcement] = (await list(alice)) as [Json];
    const id = announcement.id as string;
    await masto(alice).v1.announcements.$select(id).dismiss();
    await masto(alice).v1.announcements.$select(id).dismiss(); // twice is fine
    expect((await list(alice))[0]).to.include({ read: true });
    expect((await list(bob))[0]).to.include({ read: false });

    await masto(alice).v1.announcements.$select(id).reactions.$select('👍').update();
    await megalodon(bob).addReactionToAnnouncement(id, '👍');
    await megalodon(bob).addReactionToAnnouncement(id, '❤'); // stored with its emoji selector
    await masto(bob).v1.announcements.$select(id).reactions.$select('👍').update(); // once per user
    const put = await rest(t.url, `/api/v1/announcements/${id}/reactions/${encodeURIComponent('🎉')}`, {
      method: 'PUT',
      token: alice.token,
    });
    expect(put).to.deep.include({ status: 200, body: {} });
    expect((await list(alice))[0]!.reactions).to.deep.equal([
      { name: '👍', count: 2, me: true },
      { name: '❤️', count: 1, me: false },
      { name: '🎉', count: 1, me: true },
    ]);

    await masto(alice).v1.announcements.$select(id).reactions.$select('🎉').remove();
    await megalodon(bob).removeReactionFromAnnouncement(id, '👍');
    expect((await list(bob))[0]!.reactions).to.deep.equal([
      { name: '👍', count: 1, me: false },
      { name: '❤️', count: 1, me: true },
    ]);
  });

  it('refuses what is not an emoji, a ninth reaction, and unknown or unpublished announcements', async () => {
    const [announcement] = (await list(alice)) as [Json];
    const id = announcement.id as string;
    const reactPath = (name: string, on = id) =>
      `/api/v1/announcements/${on}/reactions/${encodeURIComponent(name)}`;

    const word = await rest(t.url, reactPath('hello'), { method: 'PUT', token: alice.token });
    expect(word.status).to.equal(422);
    expect(word.body.error).to.equal('Validation failed: Name is not a recognized emoji');

    // Two reactions exist; six more fill the eight the reference allows; a ninth is refused.
    for (const emoji of ['😀', '😂', '🚀', '🌱', '🐘', '🍕']) {
      expect((await rest(t.url, reactPath(emoji), { method: 'PUT', token: alice.token })).status).to.equal(
        200,
      );
    }
    const ninth = await rest(t.url, reactPath('🦊'), { method: 'PUT', token: alice.token });
    expect(ninth.status).to.equal(422);
    expect(ninth.body.error).to.match(/^Validation failed: Name/);
    // An existing one may still be added by another user.
    expect((await rest(t.url, reactPath('🚀'), { method: 'PUT', token: bob.token })).status).to.equal(200);

    // What an administrator writes is checked too: nothing is stored when it is refused.
    for (const [input, message] of [
      [{ text: '  ' }, "Validation failed: text can't be blank"],
      [{ text: 'x', startsAt: new Date() }, 'Validation failed: ends_at must be given with starts_at'],
      [
        { text: 'x', startsAt: new Date(), endsAt: new Date(Date.now() - 1000) },
        'Validation failed: ends_at must be after starts_at',
      ],
    ] as const) {
      const refused = await t.ctx.announcements.create(input).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(BadInput).and.have.property('message', message);
    }
    expect((await t.ctx.announcements.all()).map((a) => a.text)).to.not.include('x');

    const draft = await t.ctx.announcements.create({ text: 'Draft', published: false });
    for (const [method, path] of [
      ['POST', '/api/v1/announcements/999999/dismiss'],
      ['POST', '/api/v1/announcements/abc/dismiss'],
      ['POST', `/api/v1/announcements/${draft.id}/dismiss`],
      ['PUT', reactPath('👍', draft.id)],
      ['DELETE', reactPath('🦊')], // a reaction the caller never made
    ] as const) {
      const answer = await rest(t.url, path, { method, token: alice.token });
      expect(answer, `${method} ${path}`).to.deep.include({
        status: 404,
        body: { error: 'Record not found' },
      });
    }

    // Published later, it is listed; removed, it is gone with its reactions.
    await t.ctx.announcements.setPublished(draft.id, true);
    expect((await list(bob)).map((a) => a.id)).to.include(draft.id);
    await t.ctx.announcements.remove(draft.id);
    expect((await list(bob)).map((a) => a.id)).to.not.include(draft.id);
  });
});
