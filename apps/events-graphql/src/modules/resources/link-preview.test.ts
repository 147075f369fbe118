import { expect } from 'chai';
import { htmlPage, listenPages } from '@agora/federation/testing';
import { createGuardedFetch } from '@agora/federation';
import { gql, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { LinkPreviews } from './link-preview.js';

// previewResourceLink (spec behaviour 27, issue 14 §6): a page's OpenGraph, Twitter card, oEmbed and
// favicon, read through the guarded fetch. The pages below are served by a local server that the
// events server may reach only because its exact host:port is allowlisted (FEDERATION_ALLOW_PRIVATE_HOSTS,
// the guarded fetch's own mechanism for test peers); any other loopback or private address stays refused.

const SCRIPT = '<script>alert(1)</script>';

describe('previewResourceLink: link previews through the guarded fetch', function () {
  this.timeout(60_000);
  let events: TestServer;
  let pages: Awaited<ReturnType<typeof listenPages>>;
  let elsewhere: Awaited<ReturnType<typeof listenPages>>;
  let token: string;
  let base: string;

  const preview = (url: string, as: string | null = token) =>
    gql(
      events,
      `mutation($u: String!) { previewResourceLink(resourceUrl: $u) {
        title description type imageRemoteUrl width height authorName authorUrl providerName providerUrl
        html faviconUrl } }`,
      { ...(as ? { token: as } : {}), variables: { u: url } },
    );
  const metadata = async (url: string) => {
    const answer = await preview(url);
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).to.equal(undefined);
    return answer.body.data!.previewResourceLink as Record<string, unknown>;
  };
  const refusal = async (url: string) => {
    const answer = await preview(url);
    const error = answer.body.errors?.[0];
    expect(error, JSON.stringify(answer.body)).to.not.equal(undefined);
    return { message: error!.message, code: error!.code, status_code: error!.status_code };
  };

  before(async () => {
    // Another local server, not allowlisted: redirects to it must be refused.
    elsewhere = await listenPages((_request, response) =>
      htmlPage(response, '<title>Internal admin</title>'),
    );
    pages = await listenPages((request, response) => {
      const url = request.url ?? '/';
      switch (url) {
        case '/article':
          return htmlPage(
            response,
            `<!doctype html><html><head>
              <title>Fallback title</title>
              <meta property="og:title" content="The &amp; article">
              <meta property="og:description" content="What it is about">
              <meta property="og:type" content="article">
              <meta property="og:site_name" content="The site">
              <meta property="og:image" content="/images/cover.png">
              <meta property="og:image:width" content="1200">
              <meta property="og:image:height" content="630">
              <meta name="twitter:title" content="Twitter title">
              <link rel="shortcut icon" href="/static/icon.png">
            </head><body><p>Text</p></body></html>`,
          );
        case '/twitter-only':
          return htmlPage(
            response,
            `<html><head><meta name="twitter:title" content="Card title">
              <meta name="twitter:description" content="Card text">
              <meta name="twitter:image" content="https://cdn.example.org/card.jpg"></head></html>`,
          );
        case '/plain':
          // Only a <title> and a description; the favicon is found at the root.
          return htmlPage(
            response,
            '<html><head><title>  Plain\n page  </title><meta name="description" content="Plain text"></head></html>',
          );
        case '/favicon.ico':
          response.writeHead(200, { 'content-type': 'image/x-icon' });
          return response.end();
        case '/video':
          return htmlPage(
            response,
            `<html><head><title>Video page</title>
              <link rel="alternate" type="application/json+oembed" href="/oembed.json"></head></html>`,
          );
        case '/oembed.json':
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(
            JSON.stringify({
              type: 'video',
              title: `A video ${SCRIPT}`,
              author_name: '<b>Someone</b>',
              author_url: 'javascript:alert(1)',
              provider_name: 'Tube',
              provider_url: 'https://tube.example.org/',
              thumbnail_url: 'https://tube.example.org/thumb.jpg',
              width: 640,
              height: 360,
              html: `<iframe src="https://tube.example.org/embed/1" width="640" height="360" onload="alert(1)"></iframe>${SCRIPT}<img src=x onerror=alert(1)>`,
            }),
          );
        case '/hostile':
          // Script in every field: the meta contents, the title, the URLs.
          return htmlPage(
            response,
            `<html><head><title>${SCRIPT}Hostile</title>
              <meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;<b>Bold</b> title">
              <meta property="og:description" content="${'x'.repeat(5000)}">
              <meta property="og:type" content="<img src=x onerror=alert(1)>">
              <meta property="og:site_name" content="&lt;style&gt;body{}&lt;/style&gt;Site">
              <meta property="og:image" content="javascript:alert(1)">
              <meta property="og:image:width" content="1e9">
              <link rel="icon" href="data:text/html,${encodeURIComponent(SCRIPT)}">
            </head></html>`,
          );
        case '/latin1':
          response.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
          return response.end(Buffer.from('<title>Caf\u00e9 cr\u00e8me</title>', 'latin1'));
        case '/untitled':
          return htmlPage(
            response,
            '<html><head><meta name="robots" content="none"></head><body>x</body></html>',
          );
        case '/huge': {
          // No Content-Length: the cap must cut the stream itself.
          response.writeHead(200, { 'content-type': 'text/html' });
          const chunk = `<p>${'a'.repeat(64 * 1024)}</p>`;
          let sent = 0;
          const push = () => {
            while (sent < 4 * 1024 * 1024) {
              sent += chunk.length;
              if (!response.write(chunk)) return response.once('drain', push);
            }
            response.end();
          };
          return push();
        }
        case '/slow':
          response.writeHead(200, { 'content-type': 'text/html' });
          response.write('<html><head><title>Slow');
          // …and never more.
          return;
        case '/to-loopback':
          response.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/admin` });
          return response.end();
        case '/to-private':
          response.writeHead(302, { location: 'http://10.0.0.1/' });
          return response.end();
        case '/photo.png':
          response.writeHead(200, { 'content-type': 'image/png' });
          return response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        case '/download':
          response.writeHead(200, {
            'content-type': 'application/pdf',
            'content-disposition': `attachment; filename="minutes%20<b>2026</b>.pdf"`,
          });
          return response.end('%PDF-1.4');
        default:
          response.writeHead(404, { 'content-type': 'text/html' });
          return response.end('<title>Not found</title>');
      }
    });
    base = `http://127.0.0.1:${pages.port}`;
    events = await startTestServer('link-previews', {
      FEDERATION_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${pages.port}`,
    });
    ({ token } = await signedInAccount(events, 'previews@example.org'));
  });
  after(async () => {
    await events?.stop();
    pages?.server.closeAllConnections();
    pages?.server.close();
    elsewhere?.server.close();
  });

  it('reads OpenGraph first, resolves relative image and icon addresses against the page', async () => {
    expect(await metadata(`${base}/article`)).to.deep.equal({
      title: 'The & article',
      description: 'What it is about',
      type: 'article',
      imageRemoteUrl: `${base}/images/cover.png`,
      width: 1200,
      height: 630,
      authorName: null,
      authorUrl: null,
      providerName: 'The site',
      providerUrl: null,
      html: null,
      faviconUrl: `${base}/static/icon.png`,
    });
  });

  it('falls back to the Twitter card, then to <title> and the description, and finds /favicon.ico', async () => {
    expect(await metadata(`${base}/twitter-only`)).to.deep.include({
      title: 'Card title',
      description: 'Card text',
      imageRemoteUrl: 'https://cdn.example.org/card.jpg',
    });
    const plain = await metadata(`${base}/plain`);
    expect(plain).to.deep.include({
      title: 'Plain page',
      description: 'Plain text',
      faviconUrl: `${base}/favicon.ico`,
    });
    expect(pages.hits).to.include('HEAD /favicon.ico');
  });

  it('discovers oEmbed: a video keeps only its https iframe, texts become plain, script URLs are dropped', async () => {
    expect(await metadata(`${base}/video`)).to.deep.include({
      type: 'video',
      title: 'A video',
      authorName: 'Someone',
      authorUrl: null,
      providerName: 'Tube',
      providerUrl: 'https://tube.example.org/',
      imageRemoteUrl: 'https://tube.example.org/thumb.jpg',
      width: 640,
      height: 360,
      html: '<iframe src="https://tube.example.org/embed/1" width="640" height="360"></iframe>',
    });
  });

  it('turns a page with script in every field into capped plain text and drops unsafe addresses', async () => {
    const found = await metadata(`${base}/hostile`);
    expect(found.title).to.equal('Bold title');
    expect(found.type).to.equal(null);
    expect(found.providerName).to.equal('Site');
    expect(found.imageRemoteUrl).to.equal(null);
    expect(found.width).to.equal(null);
    expect(found.faviconUrl).to.equal(null);
    expect((found.description as string).length).to.equal(1000);
    // ("description", the key, contains "script": the values are checked.)
    expect(JSON.stringify(Object.values(found))).to.not.match(/<|script|onerror|javascript:/i);
  });

  it('reads a page in the charset its Content-Type names', async () => {
    expect((await metadata(`${base}/latin1`)).title).to.equal('Caf\u00e9 cr\u00e8me');
  });

  it('refuses a page without a title with the reference message', async () => {
    expect(await refusal(`${base}/untitled`)).to.deep.equal({
      message: 'Unable to fetch resource details from this URL.',
      code: 'unknown_error',
      status_code: 500,
    });
  });

  it('answers "Unknown Resource" for a huge body, an error status and a bad address', async () => {
    const unknown = { message: 'Unknown Resource', code: 'unknown_resource', status_code: 400 };
    expect(await refusal(`${base}/huge`)).to.deep.equal(unknown);
    expect(await refusal(`${base}/missing`)).to.deep.equal(unknown);
    expect(await refusal('javascript:alert(1)')).to.deep.equal(unknown);
    expect(await refusal('not a url')).to.deep.equal(unknown);
  });

  it('refuses redirects to loopback and private addresses, never reaching them', async () => {
    const unknown = { message: 'Unknown Resource', code: 'unknown_resource', status_code: 400 };
    expect(await refusal(`${base}/to-loopback`)).to.deep.equal(unknown);
    expect(await refusal(`${base}/to-private`)).to.deep.equal(unknown);
    // Direct requests too: only the allowlisted host:port is reachable.
    expect(await refusal(`http://127.0.0.1:${elsewhere.port}/admin`)).to.deep.equal(unknown);
    expect(await refusal(`http://localhost:${pages.port}/article`)).to.deep.equal(unknown);
    expect(elsewhere.hits).to.deep.equal([]);
  });

  it('describes files that are not pages by their name, and images by their address', async () => {
    expect(await metadata(`${base}/photo.png`)).to.deep.include({
      title: 'photo.png',
      imageRemoteUrl: `${base}/photo.png`,
    });
    expect(await metadata(`${base}/download`)).to.deep.include({
      title: 'minutes 2026.pdf',
      imageRemoteUrl: null,
    });
  });

  it('needs a signed-in caller', async () => {
    const answer = await preview(`${base}/article`, null);
    expect(answer.body.errors?.[0]).to.deep.include({
      message: 'You need to be logged in',
      status_code: 401,
    });
  });

  it("gives up on a body that never ends within the server's 10 s budget", async () => {
    const started = Date.now();
    expect(await refusal(`${base}/slow`)).to.deep.equal({
      message: 'Unknown Resource',
      code: 'unknown_resource',
      status_code: 400,
    });
    expect(Date.now() - started).to.be.within(9_000, 15_000);
  });

  it('gives up on a body that never ends once its time budget is spent', async () => {
    // The same class with a short budget (the server's is the reference's 10 s).
    const previews = new LinkPreviews({
      fetch: createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: [`127.0.0.1:${pages.port}`] }),
      timeoutMs: 500,
    });
    const started = Date.now();
    const error = await previews.preview(`${base}/slow`).then(
      () => null,
      (failure: Error) => failure,
    );
    expect(error?.message).to.equal('Unknown Resource');
    expect(Date.now() - started).to.be.below(5000);
  });
});
