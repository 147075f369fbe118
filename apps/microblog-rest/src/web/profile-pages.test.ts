import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import sharp from 'sharp';
import { registerApp, signedInAccount, type SeededAccount } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';

type Signed = SeededAccount & { token: string };

/** The content of `<meta property="…">`, entities decoded as a link-preview fetcher reads them. */
function meta(html: string, property: string): string | undefined {
  const match = new RegExp(`<meta property="${property}" content="([^"]*)">`).exec(html);
  return match?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

async function page(url: string, accept = 'text/html,application/xhtml+xml') {
  const response = await fetch(url, { headers: { accept }, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

// Issue 15 §7: a minimal server-rendered page per account and per status, with OpenGraph tags.
describe('the pages of accounts and posts (/@name, /@name/:id)', () => {
  let t: TestServer;
  let alice: Signed;
  let bob: Signed;
  let asAlice: mastodon.rest.Client;
  const posted: Record<string, mastodon.v1.Status> = {};

  before(async () => {
    t = await startTestServer('profile_pages');
    const app = await registerApp(t.url, 'Pages test');
    alice = await signedInAccount(t, app, 'alice');
    bob = await signedInAccount(t, app, 'bob');
    asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    await asAlice.v1.accounts.updateCredentials({
      displayName: 'Al <script>x("n")</script>',
      note: 'I write <b>things</b> & "stuff"',
    });
    const png = await sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 90, b: 200 } },
    })
      .png()
      .toBuffer();
    const media = await asAlice.v2.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
      description: 'A blue "rectangle" <svg onload=alert(1)>',
    });
    posted.withMedia = await asAlice.v1.statuses.create({ status: 'A picture #blue', mediaIds: [media.id] });
    posted.public = await asAlice.v1.statuses.create({
      status: 'Hello <img src=x onerror=alert(1)> & welcome, @bob',
      visibility: 'public',
    });
    posted.unlisted = await asAlice.v1.statuses.create({
      status: 'Quietly unlisted',
      visibility: 'unlisted',
    });
    posted.private = await asAlice.v1.statuses.create({
      status: 'Followers only secret',
      visibility: 'private',
    });
    posted.direct = await asAlice.v1.statuses.create({ status: '@bob direct secret', visibility: 'direct' });
    posted.warned = await asAlice.v1.statuses.create({ status: 'Spoiled ending', spoilerText: 'movie talk' });
    posted.bobs = await createRestAPIClient({ url: t.url, accessToken: bob.token }).v1.statuses.create({
      status: 'Bob speaking',
    });
    posted.reblog = await asAlice.v1.statuses.$select(posted.bobs.id).reblog();
  });
  after(async () => {
    await t?.stop();
  });

  it('/@name shows the account and its public and unlisted posts, escaped, with OpenGraph tags', async () => {
    const { status, headers, body } = await page(`${t.url}/@alice`);
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(headers.get('content-security-policy'))
      .to.contain("default-src 'none'")
      .and.not.contain('script-src');
    expect(headers.get('vary')).to.match(/Accept/);

    const domain = new URL(t.url).host;
    expect(meta(body, 'og:type')).to.equal('profile');
    expect(meta(body, 'og:title')).to.equal(`Al <script>x("n")</script> (@alice@${domain})`);
    expect(meta(body, 'og:description')).to.equal('I write <b>things</b> & "stuff"');
    expect(meta(body, 'og:url')).to.equal(`${t.url}/@alice`);
    expect(meta(body, 'og:image')).to.match(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(body).to.contain(
      `<link rel="alternate" type="application/activity+json" href="${t.url}/users/alice">`,
    );

    // Every piece of user text is escaped or sanitized: no markup of theirs survives.
    expect(body).to.not.match(/<script|<img src=x|<svg|<b>things|<[^>]*onerror/i);
    expect(body).to.contain('Al &lt;script&gt;');
    expect(body).to.contain('Hello &lt;img src=x onerror=alert(1)&gt; &amp; welcome');
    expect(body).to.contain('Quietly unlisted').and.contain('A picture');
    expect(body).to.not.contain('Followers only secret').and.not.contain('direct secret');
    // Own posts only: a reblog is not shown as hers.
    expect(body).to.not.contain('Bob speaking');
    // Newest first, each linking to its page.
    const order = [posted.warned!, posted.unlisted!, posted.public!, posted.withMedia!].map((s) =>
      body.indexOf(`id="status-${s.id}"`),
    );
    expect(order.every((at) => at > 0)).to.equal(true);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
    expect(body).to.contain(`href="${t.url}/@alice/${posted.public!.id}"`);
  });

  it('/@name/:id shows one public post with its image and text as OpenGraph tags', async () => {
    const withMedia = await page(`${t.url}/@alice/${posted.withMedia!.id}`);
    expect(withMedia.status).to.equal(200);
    expect(meta(withMedia.body, 'og:type')).to.equal('article');
    expect(meta(withMedia.body, 'og:url')).to.equal(`${t.url}/@alice/${posted.withMedia!.id}`);
    expect(meta(withMedia.body, 'og:description')).to.equal('A picture #blue');
    expect(meta(withMedia.body, 'og:image')).to.equal(posted.withMedia!.mediaAttachments[0]!.previewUrl);
    expect(meta(withMedia.body, 'article:published_time')).to.equal(posted.withMedia!.createdAt);
    expect(withMedia.body).to.contain(
      `<link rel="alternate" type="application/activity+json" href="${posted.withMedia!.uri}">`,
    );
    expect(withMedia.body).to.contain('alt="A blue &quot;rectangle&quot; &lt;svg onload=alert(1)&gt;"');
    // The image is fetched from where media are served, which the page's policy allows.
    const image = await fetch(posted.withMedia!.mediaAttachments[0]!.previewUrl!);
    expect(image.status).to.equal(200);

    const plain = await page(`${t.url}/@alice/${posted.public!.id}`);
    expect(meta(plain.body, 'og:description')).to.equal('Hello <img src=x onerror=alert(1)> & welcome, @bob');
    // Without media, the author's avatar.
    expect(meta(plain.body, 'og:image')).to.equal(posted.public!.account.avatar);
    // (In the head the text sits escaped inside attribute values; in the body no tag of theirs.)
    expect(plain.body.split('</head>')[1]).to.not.match(/<img src=x|<[^>]*onerror/);
    // A mention links to the account's page.
    expect(plain.body).to.contain(`href="${t.url}/@bob"`);

    // A content warning stands in for the hidden text.
    const warned = await page(`${t.url}/@alice/${posted.warned!.id}`);
    expect(meta(warned.body, 'og:description')).to.equal('Content warning: movie talk');
    expect(warned.body).to.contain('<details><summary>movie talk</summary>');
  });

  it('answers 404 for followers-only and direct posts, others’ posts, reblogs and unknown names or ids', async () => {
    for (const path of [
      `/@alice/${posted.private!.id}`,
      `/@alice/${posted.direct!.id}`,
      `/@alice/${posted.bobs!.id}`,
      `/@alice/${posted.reblog!.id}`,
      '/@alice/999999999999',
      '/@alice/not-a-number',
      '/@nobody',
      `/@nobody/${posted.public!.id}`,
      '/@alice@elsewhere.example',
    ]) {
      const answer = await page(`${t.url}${path}`);
      expect(answer.status, path).to.equal(404);
      expect(answer.body, path).to.not.contain('secret');
    }
  });

  it('sends ActivityPub requests on the same URLs to the documents’ ids, and JSON clients to the API’s 404', async () => {
    const actor = await page(`${t.url}/@alice`, 'application/activity+json');
    expect(actor.status).to.equal(302);
    expect(actor.headers.get('location')).to.equal(`${t.url}/users/alice`);
    const document = await fetch(actor.headers.get('location')!, {
      headers: { accept: 'application/activity+json' },
    });
    expect(((await document.json()) as { id: string }).id).to.equal(`${t.url}/users/alice`);

    const note = await page(
      `${t.url}/@alice/${posted.public!.id}`,
      'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
    );
    expect(note.status).to.equal(302);
    expect(note.headers.get('location')).to.equal(posted.public!.uri);
    const hidden = await page(`${t.url}/@alice/${posted.private!.id}`, 'application/activity+json');
    expect(hidden.status).to.equal(404);

    const json = await page(`${t.url}/@alice`, 'application/json');
    expect(json.status).to.equal(404);
    expect(JSON.parse(json.body)).to.have.property('error').that.is.a('string');
  });

  it('pages older posts with ?max_id=', async () => {
    const carol = await signedInAccount(t, await registerApp(t.url, 'Pages test 2'), 'carol');
    const asCarol = createRestAPIClient({ url: t.url, accessToken: carol.token });
    const ids: string[] = [];
    for (let i = 1; i <= 22; i += 1)
      ids.push((await asCarol.v1.statuses.create({ status: `post number ${i}.` })).id);
    const first = await page(`${t.url}/@carol`);
    expect(first.body.match(/<article /g)).to.have.length(20);
    expect(first.body).to.contain('post number 22.').and.not.contain('post number 2.');
    const older = /<a rel="next" href="([^"]+)">/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    expect(older).to.equal(`/@carol?max_id=${ids[2]}`);
    const second = await page(`${t.url}${older}`);
    expect(second.body.match(/<article /g)).to.have.length(2);
    expect(second.body).to.contain('post number 1.').and.contain('post number 2.');
    expect(second.body).to.not.contain('rel="next"');
  });
});
