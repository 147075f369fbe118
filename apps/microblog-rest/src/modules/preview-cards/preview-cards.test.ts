import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import { htmlPage, listenPages } from '@agora/federation/testing';
import { createRestAPIClient } from 'masto';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { readPageHead } from '@agora/federation';
import { CACHE_REMOTE_MEDIA_JOB } from '@agora/media';
import { registerApp, signedInAccount, type SeededAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { FETCH_PREVIEW_CARD_JOB, PreviewCardService } from './preview-card.service.js';

// Preview cards (issue 16 §3; not-shown.md §2.3 PreviewCard): the first link of a status is read in
// the background through the guarded fetch. The pages are served by a local server the microblog may
// reach only because its exact host:port is allowlisted (FEDERATION_ALLOW_PRIVATE_HOSTS); another
// local server stays refused, so a redirect to it must give no card and no request.

const XSS = '<script>alert(1)</script>';
describe('preview cards: first links read through the guarded fetch (issue 16 §3)', function () {
  this.timeout(90_000);
  let t: TestServer;
  let pages: Awaited<ReturnType<typeof listenPages>>;
  let elsewhere: Awaited<ReturnType<typeof listenPages>>;
  let alice: SeededAccount & { token: string };
  let base: string;
  let cover: Buffer;
  const hanging: ServerResponse[] = [];

  before(async () => {
    cover = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    elsewhere = await listenPages((_request, response) =>
      htmlPage(response, '<title>Internal admin</title>'),
    );
    pages = await listenPages((request, response) => {
      const url = request.url ?? '/';
      const hostile = (field: string) =>
        `${XSS}<b onmouseover="alert(2)">${field}</b>&lt;img src=x onerror=alert(3)&gt;`;
      switch (url) {
        case '/article':
          return htmlPage(
            response,
            `<!doctype html><html lang="fr"><head>
              <title>Fallback</title>
              <meta property="og:title" content="${hostile('The article').replace(/"/g, '&quot;')}">
              <meta property="og:description" content="What &amp; why ${XSS.replace(/</g, '&lt;')}">
              <meta property="og:site_name" content="<i>The site</i>">
              <meta property="og:image" content="/cover.png">
              <meta property="og:image:width" content="64"><meta property="og:image:height" content="32">
              <link rel="alternate" type="application/json+oembed" href="/oembed/video.json">
              </head><body>${XSS}</body></html>`,
          );
        case '/oembed/video.json':
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(
            JSON.stringify({
              type: 'video',
              version: '1.0',
              title: `A video ${XSS}`,
              author_name: `<a href="javascript:alert(1)">Author</a>`,
              author_url: 'javascript:alert(1)',
              provider_name: 'Tube',
              provider_url: 'https://tube.example/',
              thumbnail_url: '/cover.png',
              width: 640,
              height: 360,
              html: `<iframe src="https://tube.example/embed/1" width="640" height="360" onload="alert(1)"></iframe>${XSS}<img src=x onerror=alert(1)>`,
            }),
          );
        case '/rich':
          return htmlPage(
            response,
            `<html><head><title>Rich</title>
              <link rel="alternate" type="application/json+oembed" href="/oembed/rich.json"></head></html>`,
          );
        case '/oembed/rich.json':
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(
            JSON.stringify({
              type: 'rich',
              title: 'Rich thing',
              html: `<script src="https://evil.example/x.js"></script><iframe src="javascript:alert(1)"></iframe>`,
            }),
          );
        case '/plain':
          return htmlPage(
            response,
            `<html><head><title>Plain &lt;script&gt;alert(1)&lt;/script&gt;page</title>
              <meta name="description" content="${hostile('Described').replace(/"/g, '&quot;')}">
              <meta property="og:image" content="javascript:alert(1)"></head></html>`,
          );
        case '/cover.png':
          response.writeHead(200, { 'content-type': 'image/png' });
          return response.end(cover);
        case '/huge':
          response.writeHead(200, { 'content-type': 'text/html' });
          response.write('<html><head><title>Huge</title></head><body>');
          return response.end('x'.repeat(3 * 1024 * 1024));
        case '/slow':
          // Headers and a title, then nothing: the fetch's time budget must end it.
          response.writeHead(200, { 'content-type': 'text/html' });
          response.write('<html><head><title>Slow</title>');
          hanging.push(response);
          return;
        case '/to-private':
          response.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/admin` });
          return response.end();
        default:
          response.writeHead(404, { 'content-type': 'text/html' });
          return response.end('<title>Not found</title>');
      }
    });
    base = `http://127.0.0.1:${pages.port}`;
    t = await startTestServer('preview-cards', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${pages.port}` },
    });
    const app = await registerApp(t.url, 'Cards test');
    alice = await signedInAccount(t, app, 'alice');
    await signedInAccount(t, app, 'bob');
  });
  after(async () => {
    for (const response of hanging) response.destroy();
    await t?.stop();
    pages?.server.close();
    elsewhere?.server.close();
  });

  const settle = () =>
    t.ctx.queue.drain([FAN_OUT_JOB, FETCH_PREVIEW_CARD_JOB, CACHE_REMOTE_MEDIA_JOB], 30_000);
  const post = async (status: string): Promise<string> => {
    const answer = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: alice.token,
      json: { status },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.card, 'null until the job fetched it').to.equal(null);
    return answer.body.id as string;
  };
  const cardOf = async (id: string) => {
    const answer = await rest(t.url, `/api/v1/statuses/${id}`, { token: alice.token });
    expect(answer.status).to.equal(200);
    return answer.body.card as Json | null;
  };
  const noMarkup = (card: Json) => {
    for (const [key, value] of Object.entries(card)) {
      if (key === 'html' || typeof value !== 'string') continue;
      expect(value, key).to.not.match(/<|>|javascript:|onerror|onmouseover/i);
    }
  };

  it('the first link that is not a mention or hashtag gets a card: OpenGraph and oEmbed, plain text, a local image, one https iframe', async () => {
    const id = await post(`@bob #news look at ${base}/article and ${base}/plain`);
    await settle();
    const card = await cardOf(id);
    expect(card).to.not.equal(null);
    noMarkup(card!);
    expect(card).to.include({
      url: `${base}/article`,
      type: 'video',
      title: 'A video',
      description: 'What & why',
      author_name: 'Author',
      author_url: '',
      provider_name: 'Tube',
      provider_url: 'https://tube.example/',
      width: 640,
      height: 360,
      language: 'fr',
    });
    // CVE-2023-36459: of the oEmbed html only the https iframe is kept, without its handlers.
    expect(card!.html).to.equal(
      '<iframe src="https://tube.example/embed/1" width="640" height="360"></iframe>',
    );
    // The image is our copy (served under /system), made by the media pipeline, never the remote URL.
    expect(card!.image)
      .to.be.a('string')
      .and.match(new RegExp(`^${t.url}/system/`));
    const image = await fetch(card!.image as string);
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.match(/^image\//);
    // The old endpoint and masto.js read the same card.
    const old = await rest(t.url, `/api/v1/statuses/${id}/card`);
    expect(old.body).to.deep.equal(card);
    // Another status linking the same page shares the stored card: no second fetch.
    const fetches = pages.hits.filter((hit) => hit === 'GET /article').length;
    const again = await post(`again: ${base}/article`);
    await settle();
    expect((await cardOf(again))?.title).to.equal('A video');
    expect(pages.hits.filter((hit) => hit === 'GET /article').length).to.equal(fetches);
    const masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const status = await masto.v1.statuses.$select(id).fetch();
    expect(status.card?.title).to.equal('A video');
    expect(status.card?.image).to.equal(card!.image);
  });

  it('an OpenGraph title with script in it is only text; a javascript: image is dropped; a rich oEmbed without an https iframe is a link', async () => {
    const plain = await post(`${base}/plain`);
    const rich = await post(`${base}/rich`);
    await settle();
    const plainCard = await cardOf(plain);
    expect(plainCard).to.include({ title: 'Plain page', type: 'link', image: null, html: '' });
    expect(plainCard!.description).to.equal('Described');
    noMarkup(plainCard!);
    const richCard = await cardOf(rich);
    expect(richCard).to.include({ title: 'Rich thing', type: 'link', html: '' });
  });

  it('hostile pages give no card: too big, a redirect to a private address (never requested), a dead link', async () => {
    const before = elsewhere.hits.length;
    const ids = [await post(`${base}/huge`), await post(`${base}/to-private`), await post(`${base}/gone`)];
    await settle();
    for (const id of ids) expect(await cardOf(id)).to.equal(null);
    expect(elsewhere.hits.length, 'the private server was never contacted').to.equal(before);
    const old = await rest(t.url, `/api/v1/statuses/${ids[0]!}/card`);
    expect(old.body).to.deep.equal({});
  });

  it('a slow page is cut by the time budget and gives no card', async () => {
    const id = await post(`${base}/slow`);
    await settle();
    const cards = new PreviewCardService({
      sequelize: t.ctx.sequelize,
      queue: t.ctx.queue,
      logger: t.ctx.logger,
      fetch: t.ctx.federation.fetch,
      images: t.ctx.remoteMedia.cache,
      publicUrl: t.url,
      timeoutMs: 1000,
    });
    const started = Date.now();
    expect(await cards.fetchFor(id)).to.equal(null);
    expect(Date.now() - started).to.be.below(5000);
    expect(await cardOf(id)).to.equal(null);
  });

  it('a status with only mentions, hashtags or links to this server gets none; an edit that drops the link drops the card', async () => {
    const id = await post(`@bob #tag ${t.url}/@alice`);
    const plain = await post('no link at all');
    await settle();
    expect(await cardOf(id)).to.equal(null);
    // Nothing to read, so no card job was even queued for them.
    const [queued] = await t.ctx.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'statusId' IN ($2, $3)`,
      { bind: [FETCH_PREVIEW_CARD_JOB, id, plain], type: QueryTypes.SELECT },
    );
    expect(queued?.n).to.equal(0);
    const linked = await post(`${base}/plain`);
    await settle();
    expect((await cardOf(linked))?.title).to.equal('Plain page');
    const edited = await rest(t.url, `/api/v1/statuses/${linked}`, {
      method: 'PUT',
      token: alice.token,
      json: { status: 'no link any more' },
    });
    expect(edited.status).to.equal(200);
    await settle();
    expect(await cardOf(linked)).to.equal(null);
  });

  it('GET /api/oembed answers Mastodon’s rich document for our public statuses, 404 for others', async () => {
    const id = await post('Hello <world> & friends');
    const direct = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: alice.token,
      json: { status: 'secret', visibility: 'direct' },
    });
    const url = `${t.url}/@alice/${id}`;
    const answer = await rest(t.url, `/api/oembed?url=${encodeURIComponent(url)}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body).to.include({
      type: 'rich',
      version: '1.0',
      author_name: 'alice',
      provider_url: `${t.url}/`,
      width: 400,
      height: null,
    });
    expect(answer.body.author_url).to.match(/\/@alice$|\/users\/alice$/);
    expect(answer.body.html).to.include('Hello &lt;world&gt; &amp; friends');
    expect(answer.body.html).to.not.include('<script');
    const byUri = await rest(
      t.url,
      `/api/oembed?url=${encodeURIComponent(`${t.url}/users/alice/statuses/${id}`)}`,
    );
    expect(byUri.status).to.equal(200);
    for (const other of [
      `${t.url}/@alice/${direct.body.id as string}`,
      `${t.url}/@bob/${id}`,
      `https://elsewhere.example/@alice/${id}`,
      'not a url',
    ]) {
      const refused = await rest(t.url, `/api/oembed?url=${encodeURIComponent(other)}`);
      expect(refused.status, other).to.equal(404);
      expect(refused.body).to.deep.equal({ error: 'Record not found' });
    }
    const missing = await rest(t.url, '/api/oembed');
    expect(missing.status).to.equal(422);
    // The status page advertises it, as Mastodon's does (oEmbed discovery, read with our card parser).
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    const discovered = readPageHead(await page.text()).oembedUrl;
    expect(discovered).to.equal(`${t.url}/api/oembed?url=${encodeURIComponent(url)}`);
    const followed = await rest(t.url, discovered!.slice(t.url.length));
    expect(followed.body).to.deep.equal(answer.body);
  });
});
