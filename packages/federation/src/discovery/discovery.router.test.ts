import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { federationMigrationSet } from '../migrations/index.js';
import { ActorStore } from '../actors/actor.store.js';
import type { ActorUrlScheme } from '../actors/actor.types.js';
import { actorDocumentHandler } from './actor-document.handler.js';
import { createDiscoveryRouter } from './discovery.router.js';

const PUBLIC_URL = 'https://social.test';

/** The microblog's layout: the id under /users, the profile page at /@name. */
const urls: ActorUrlScheme = ({ username }) => ({
  uri: `${PUBLIC_URL}/users/${username}`,
  url: `${PUBLIC_URL}/@${username}`,
  inboxUrl: `${PUBLIC_URL}/users/${username}/inbox`,
  outboxUrl: `${PUBLIC_URL}/users/${username}/outbox`,
  sharedInboxUrl: `${PUBLIC_URL}/inbox`,
  followersUrl: `${PUBLIC_URL}/users/${username}/followers`,
  followingUrl: `${PUBLIC_URL}/users/${username}/following`,
  endpoints: {},
});

describe('discovery over HTTP (WebFinger, host-meta, actor documents)', () => {
  const database = withTestDatabase('federation_discovery', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let actors: ActorStore;
  let server: Server;
  let base: string;

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    actors = new ActorStore({ sequelize, urls });
    const alice = await actors.createLocal({ type: 'Person', username: 'Alice', displayName: 'Alice' });
    await actors.update(alice.id, { avatarUrl: 'https://files.social.test/a.png' });
    await actors.createLocal({ type: 'Group', username: 'hikers' });
    const mallory = await actors.createLocal({ type: 'Person', username: 'mallory' });
    await actors.suspend(mallory.id, true);
    await actors.upsertRemote({
      type: 'Person',
      username: 'dave',
      domain: 'remote.test',
      uri: 'https://remote.test/users/dave',
      url: 'https://remote.test/@dave',
      inboxUrl: null,
      outboxUrl: null,
      sharedInboxUrl: null,
      followersUrl: null,
      followingUrl: null,
      endpoints: {},
      publicKeyPem: null,
      keyId: null,
    });

    const app = express();
    app.use(
      createDiscoveryRouter({
        publicUrl: PUBLIC_URL,
        actors,
        subscribeTemplate: `${PUBLIC_URL}/authorize_interaction?uri={uri}`,
        extraLinks: (actor) => [
          {
            rel: 'http://schemas.google.com/g/2010#updates-from',
            type: 'application/atom+xml',
            href: `${PUBLIC_URL}/users/${actor.username}.atom`,
          },
        ],
      }),
    );
    // A second instance that lives on a port: its acct: domain carries it.
    app.use('/ported', createDiscoveryRouter({ publicUrl: 'http://localhost:3000', actors }));
    // Split domain: accounts are @name@example.test, served from social.test.
    app.use('/split', createDiscoveryRouter({ publicUrl: PUBLIC_URL, domain: 'example.test', actors }));
    app.get(
      '/users/:name',
      actorDocumentHandler({
        lookup: (req) => actors.findByUsername(String(req.params['name']), null),
        document: { flavour: 'microblog' },
      }),
      (_req, res) => {
        res.type('text/html').send('<h1>profile page</h1>');
      },
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await sequelize.close();
  });

  const webfinger = (resource: string | null, headers: Record<string, string> = {}, prefix = '') =>
    fetch(
      `${base}${prefix}/.well-known/webfinger${resource === null ? '' : `?resource=${encodeURIComponent(resource)}`}`,
      { headers },
    );

  it('answers a JRD for acct:name@domain with aliases, self, profile page, extra links, subscribe and avatar', async () => {
    const response = await webfinger('acct:Alice@social.test');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/jrd+json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(await response.json()).to.deep.equal({
      subject: 'acct:Alice@social.test',
      aliases: ['https://social.test/@Alice', 'https://social.test/users/Alice'],
      links: [
        {
          rel: 'http://webfinger.net/rel/profile-page',
          type: 'text/html',
          href: 'https://social.test/@Alice',
        },
        { rel: 'self', type: 'application/activity+json', href: 'https://social.test/users/Alice' },
        {
          rel: 'http://schemas.google.com/g/2010#updates-from',
          type: 'application/atom+xml',
          href: 'https://social.test/users/Alice.atom',
        },
        {
          rel: 'http://ostatus.org/schema/1.0/subscribe',
          template: 'https://social.test/authorize_interaction?uri={uri}',
        },
        {
          rel: 'http://webfinger.net/rel/avatar',
          type: 'image/png',
          href: 'https://files.social.test/a.png',
        },
      ],
    });
  });

  it('matches names and domains case-insensitively, with or without acct: and a leading @', async () => {
    for (const resource of [
      'acct:@alice@SOCIAL.test',
      'ALICE@social.test',
      '@alice@social.test',
      'acct:hikers@social.test',
    ]) {
      const response = await webfinger(resource);
      expect(response.status, resource).to.equal(200);
    }
    const jrd = (await (await webfinger('acct:aLiCe@Social.Test')).json()) as { subject: string };
    expect(jrd.subject).to.equal('acct:Alice@social.test');
  });

  it('finds the actor by its id or its profile page URL (aliases)', async () => {
    for (const resource of ['https://social.test/users/Alice', 'https://SOCIAL.test/@Alice']) {
      const response = await webfinger(resource);
      expect(response.status, resource).to.equal(200);
      expect(((await response.json()) as { subject: string }).subject).to.equal('acct:Alice@social.test');
    }
  });

  it('answers XRD when Accept asks for it, JRD to browser Accept lists', async () => {
    const response = await webfinger('acct:alice@social.test', { Accept: 'application/xrd+xml' });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/xrd+xml; charset=utf-8');
    const xml = await response.text();
    expect(xml).to.contain('<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">');
    expect(xml).to.contain('<Subject>acct:Alice@social.test</Subject>');
    expect(xml).to.contain('<Alias>https://social.test/@Alice</Alias>');
    expect(xml).to.contain(
      '<Link rel="self" type="application/activity+json" href="https://social.test/users/Alice"/>',
    );
    expect(xml).to.contain('template="https://social.test/authorize_interaction?uri={uri}"');
    // Browsers' Accept lists still get JSON.
    const browser = await webfinger('acct:alice@social.test', { Accept: 'application/json, */*' });
    expect(browser.headers.get('content-type')).to.match(/^application\/jrd\+json/);
  });

  it('answers 400 with a JSON error when resource is missing', async () => {
    for (const response of [await webfinger(null), await webfinger('')]) {
      expect(response.status).to.equal(400);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(await response.json())
        .to.have.property('error')
        .that.is.a('string');
    }
  });

  it('answers 404 for unknown, remote, suspended and other-domain resources', async () => {
    for (const resource of [
      'acct:nobody@social.test',
      'acct:alice@other.test',
      'acct:dave@social.test',
      'acct:dave@remote.test',
      'https://remote.test/users/dave',
      'acct:mallory@social.test',
      'https://social.test/users/nobody',
      'mailto:alice@social.test',
      'acct:alice',
      'acct:@social.test',
    ]) {
      const response = await webfinger(resource);
      expect(response.status, resource).to.equal(404);
      expect(await response.json()).to.have.property('error');
    }
  });

  it('uses the domain with its port exactly as the instance has it', async () => {
    const ok = await webfinger('acct:alice@localhost:3000', {}, '/ported');
    expect(ok.status).to.equal(200);
    expect(((await ok.json()) as { subject: string }).subject).to.equal('acct:Alice@localhost:3000');
    expect((await webfinger('acct:alice@localhost', {}, '/ported')).status).to.equal(404);
    expect((await webfinger('acct:alice@localhost:3001', {}, '/ported')).status).to.equal(404);
  });

  it('names accounts by the acct: domain and finds URLs on the web host when the two differ', async () => {
    const byAcct = await webfinger('acct:alice@example.test', {}, '/split');
    expect(((await byAcct.json()) as { subject: string }).subject).to.equal('acct:Alice@example.test');
    const byUrl = await webfinger('https://social.test/users/Alice', {}, '/split');
    expect(byUrl.status).to.equal(200);
    expect((await webfinger('acct:alice@social.test', {}, '/split')).status).to.equal(404);
  });

  it('serves host-meta as XRD with the lrdd template, and as JSON', async () => {
    const xrd = await fetch(`${base}/.well-known/host-meta`);
    expect(xrd.headers.get('content-type')).to.equal('application/xrd+xml; charset=utf-8');
    expect(await xrd.text()).to.contain(
      '<Link rel="lrdd" type="application/xrd+xml" template="https://social.test/.well-known/webfinger?resource={uri}"/>',
    );
    const json = await fetch(`${base}/.well-known/host-meta.json`);
    expect(json.headers.get('access-control-allow-origin')).to.equal('*');
    expect(await json.json()).to.deep.equal({
      links: [
        {
          rel: 'lrdd',
          type: 'application/jrd+json',
          template: 'https://social.test/.well-known/webfinger?resource={uri}',
        },
      ],
    });
    const negotiated = await fetch(`${base}/.well-known/host-meta`, {
      headers: { Accept: 'application/json' },
    });
    expect(negotiated.headers.get('content-type')).to.match(/^application\/jrd\+json/);
  });

  it('serves the actor document to ActivityPub clients and the HTML page to browsers', async () => {
    const ap = await fetch(`${base}/users/alice`, { headers: { Accept: 'application/activity+json' } });
    expect(ap.status).to.equal(200);
    expect(ap.headers.get('content-type')).to.equal('application/activity+json; charset=utf-8');
    expect(ap.headers.get('vary')).to.match(/Accept/);
    expect(await ap.json()).to.include({ id: 'https://social.test/users/Alice', preferredUsername: 'Alice' });

    const ld = await fetch(`${base}/users/hikers`, {
      headers: { Accept: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' },
    });
    expect(await ld.json()).to.include({ type: 'Group' });

    const html = await fetch(`${base}/users/alice`, { headers: { Accept: 'text/html,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).to.match(/^text\/html/);
    expect(await html.text()).to.equal('<h1>profile page</h1>');

    for (const name of ['nobody', 'mallory']) {
      const missing = await fetch(`${base}/users/${name}`, {
        headers: { Accept: 'application/activity+json' },
      });
      expect(missing.status, name).to.equal(404);
    }
  });
});
