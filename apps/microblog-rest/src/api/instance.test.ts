import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { createLogger } from '@agora/core';
import { INSTANCE_CHANGED_CHANNEL } from '../context.js';
import { InstanceStatsRegistry } from '../modules/instance/instance-stats.js';
import { expectShape, type Shape } from '../testing/shape.js';
import { startTestServer, type TestServer } from '../testing/server.js';

const RULE: Shape = { id: 'string', text: 'string', hint: 'string', translations: 'object' };
const STATUSES: Shape = {
  max_characters: 'number',
  max_media_attachments: 'number',
  characters_reserved_per_url: 'number',
};
const MEDIA_V1 = {
  supported_mime_types: ['string'] as [Shape],
  image_size_limit: 'number',
  image_matrix_limit: 'number',
  video_size_limit: 'number',
  video_frame_rate_limit: 'number',
  video_matrix_limit: 'number',
};
const POLLS: Shape = {
  max_options: 'number',
  max_characters_per_option: 'number',
  min_expiration: 'number',
  max_expiration: 'number',
};
const FEED: Shape = { local: 'string', remote: 'string' };

const INSTANCE_V1: Shape = {
  uri: 'string',
  title: 'string',
  short_description: 'string',
  description: 'string',
  email: 'string',
  version: 'string',
  urls: { streaming_api: 'string' },
  stats: { user_count: 'number', status_count: 'number', domain_count: 'number' },
  thumbnail: 'string|null',
  languages: ['string'],
  registrations: 'boolean',
  approval_required: 'boolean',
  invites_enabled: 'boolean',
  configuration: {
    accounts: { max_featured_tags: 'number' },
    statuses: STATUSES,
    media_attachments: MEDIA_V1,
    polls: POLLS,
  },
  contact_account: 'object|null',
  rules: [RULE],
};

const INSTANCE_V2: Shape = {
  domain: 'string',
  title: 'string',
  version: 'string',
  source_url: 'string|null',
  description: 'string',
  usage: { users: { active_month: 'number' } },
  thumbnail: { url: 'string', blurhash: 'string|null', versions: { '@1x': 'string', '@2x': 'string' } },
  icon: [{ src: 'string', size: 'string' }],
  languages: ['string'],
  configuration: {
    urls: {
      streaming: 'string',
      status: 'string|null',
      about: 'string|null',
      privacy_policy: 'string|null',
      terms_of_service: 'string|null',
    },
    vapid: { public_key: 'string|null' },
    accounts: {
      max_featured_tags: 'number',
      max_pinned_statuses: 'number',
      max_display_name_length: 'number',
      max_note_length: 'number',
      max_profile_fields: 'number',
      profile_field_name_limit: 'number',
      profile_field_value_limit: 'number',
      max_avatar_description_length: 'number',
      max_header_description_length: 'number',
    },
    statuses: STATUSES,
    media_attachments: { ...MEDIA_V1, description_limit: 'number' },
    polls: POLLS,
    translation: { enabled: 'boolean' },
    timelines_access: { live_feeds: FEED, hashtag_feeds: FEED, trending_link_feeds: FEED },
    limited_federation: 'boolean',
  },
  registrations: {
    enabled: 'boolean',
    approval_required: 'boolean',
    reason_required: 'boolean',
    message: 'string|null',
    min_age: 'number|null',
    url: 'string|null',
  },
  api_versions: { mastodon: 'number' },
  contact: { email: 'string', account: 'object|null' },
  rules: [RULE],
  wrapstodon: 'string|null',
};

async function getJson(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('GET /api/v1/instance and /api/v2/instance', () => {
  let t: TestServer;
  const stats = new InstanceStatsRegistry(createLogger({ level: 'silent', name: 'test' }));
  let users = 3;
  stats.contribute('users', async () => users);
  stats.contribute('localStatuses', async () => 42);

  before(async () => {
    t = await startTestServer('instance', {
      env: { CONTACT_EMAIL: 'admin@example.org', INSTANCE_LANGUAGES: 'en,fr' },
      overrides: { stats },
    });
  });
  after(async () => {
    await t?.stop();
  });

  it('serves the complete v1 shape as JSON, with configuration defaults and Mastodon limits', async () => {
    const { status, headers, body } = await getJson(`${t.url}/api/v1/instance`);
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expectShape(body, INSTANCE_V1);
    const port = new URL(t.url).port;
    expect(body).to.deep.include({
      uri: `127.0.0.1:${port}`,
      title: 'Agora',
      email: 'admin@example.org',
      urls: { streaming_api: `ws://127.0.0.1:${port}` },
      languages: ['en', 'fr'],
      registrations: true,
      approval_required: false,
      invites_enabled: false,
      contact_account: null,
      rules: [],
    });
    const v1 = body as { version: string; configuration: { statuses: unknown; polls: unknown } };
    // A plain Mastodon semver first, so version-sniffing clients enable what 4.3 offers.
    expect(v1.version).to.match(/^4\.3\.0 \(compatible; Agora \d+\.\d+\.\d+\)$/);
    expect(v1.configuration.statuses).to.deep.equal({
      max_characters: 500,
      max_media_attachments: 4,
      characters_reserved_per_url: 23,
    });
    expect(v1.configuration.polls).to.deep.equal({
      max_options: 4,
      max_characters_per_option: 50,
      min_expiration: 300,
      max_expiration: 2_629_746,
    });
  });

  it('serves the complete v2 shape, with the streaming URL and API version', async () => {
    const { status, body } = await getJson(`${t.url}/api/v2/instance`);
    expect(status).to.equal(200);
    expectShape(body, INSTANCE_V2);
    const v2 = body as {
      configuration: { urls: { streaming: string } };
      api_versions: { mastodon: number };
      contact: unknown;
      registrations: unknown;
      thumbnail: { url: string };
    };
    expect(v2.configuration.urls.streaming).to.equal(`ws://127.0.0.1:${new URL(t.url).port}`);
    expect(v2.api_versions.mastodon).to.equal(2);
    expect(v2.contact).to.deep.equal({ email: 'admin@example.org', account: null });
    expect(v2.registrations).to.deep.include({ enabled: true, approval_required: false, message: null });
    // The default banner is served by the server itself.
    const thumbnail = await fetch(v2.thumbnail.url);
    expect(thumbnail.status).to.equal(200);
    expect(thumbnail.headers.get('content-type')).to.equal('image/png');
    expect(
      Buffer.from(await thumbnail.arrayBuffer())
        .subarray(1, 4)
        .toString('ascii'),
    ).to.equal('PNG');
  });

  it('publishes the usage counters modules contribute, and 0 for the others', async () => {
    const v1 = (await getJson(`${t.url}/api/v1/instance`)).body as { stats: unknown };
    expect(v1.stats).to.deep.equal({ user_count: 3, status_count: 42, domain_count: 0 });
    const v2 = (await getJson(`${t.url}/api/v2/instance`)).body as { usage: unknown };
    expect(v2.usage).to.deep.equal({ users: { active_month: 0 } });
  });

  it('parses with masto.js as a real client does', async () => {
    const masto = createRestAPIClient({ url: t.url });
    const v1 = await masto.v1.instance.fetch();
    expect(v1.title).to.equal('Agora');
    expect(v1.configuration.statuses.maxCharacters).to.equal(500);
    expect(v1.urls.streamingApi).to.match(/^ws:\/\//);
    const v2 = await masto.v2.instance.fetch();
    expect(v2.configuration.urls.streaming).to.match(/^ws:\/\//);
    expect(v2.configuration.accounts.maxPinnedStatuses).to.equal(5);
    expect(v2.apiVersions.mastodon).to.equal(2);
    expect(v2.registrations.approvalRequired).to.equal(false);
  });

  it('reflects a settings change at once in v1, v2 and NodeInfo', async () => {
    await t.ctx.instance.updateSettings({
      title: 'Renamed',
      shortDescription: 'Short and sweet',
      description: '<p>Longer</p>',
      registrationsOpen: false,
      closedRegistrationsMessage: 'Come back later',
      languages: ['de'],
    });
    const v1 = (await getJson(`${t.url}/api/v1/instance`)).body;
    expect(v1).to.deep.include({
      title: 'Renamed',
      short_description: 'Short and sweet',
      description: '<p>Longer</p>',
      registrations: false,
      languages: ['de'],
    });
    const v2 = (await getJson(`${t.url}/api/v2/instance`)).body as { registrations: unknown };
    expect(v2).to.deep.include({ title: 'Renamed', description: 'Short and sweet', languages: ['de'] });
    expect(v2.registrations).to.deep.include({ enabled: false, message: 'Come back later' });
    const nodeinfo = (await getJson(`${t.url}/nodeinfo/2.1`)).body as {
      openRegistrations: boolean;
      metadata: unknown;
    };
    expect(nodeinfo.openRegistrations).to.equal(false);
    expect(nodeinfo.metadata).to.deep.include({ nodeName: 'Renamed', nodeDescription: 'Short and sweet' });
  });

  it('refuses invalid settings with the field at fault and changes nothing', async () => {
    const before = (await getJson(`${t.url}/api/v1/instance`)).body as { title: string };
    let caught: unknown;
    try {
      await t.ctx.instance.updateSettings({ title: 'Valid', languages: ['english'] });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.have.property('kind', 'BadInput');
    expect(caught).to.have.nested.property('fields.languages.0');
    expect(((await getJson(`${t.url}/api/v1/instance`)).body as { title: string }).title).to.equal(
      before.title,
    );
  });

  it('lists rules in both versions and at /api/v1/instance/rules, ids as strings', async () => {
    const second = await t.ctx.instance.addRule({ text: 'Be kind', priority: 2 });
    const first = await t.ctx.instance.addRule({ text: 'No spam', hint: 'Ads included', priority: 1 });
    const expected = [
      { id: first.id, text: 'No spam', hint: 'Ads included', translations: {} },
      { id: second.id, text: 'Be kind', hint: '', translations: {} },
    ];
    expect(first.id).to.be.a('string');
    expect(((await getJson(`${t.url}/api/v1/instance`)).body as { rules: unknown }).rules).to.deep.equal(
      expected,
    );
    expect(((await getJson(`${t.url}/api/v2/instance`)).body as { rules: unknown }).rules).to.deep.equal(
      expected,
    );
    expect((await getJson(`${t.url}/api/v1/instance/rules`)).body).to.deep.equal(expected);
    await t.ctx.instance.removeRule(second.id);
    expect((await getJson(`${t.url}/api/v1/instance/rules`)).body).to.deep.equal([expected[0]]);
  });

  it('answers a conditional request with 304 when nothing changed', async () => {
    const first = await fetch(`${t.url}/api/v2/instance`);
    const etag = first.headers.get('etag');
    expect(etag).to.be.a('string');
    const again = await fetch(`${t.url}/api/v2/instance`, { headers: { 'If-None-Match': etag ?? '' } });
    expect(again.status).to.equal(304);
    await t.ctx.instance.updateSettings({ title: 'Changed again' });
    const changed = await fetch(`${t.url}/api/v2/instance`, { headers: { 'If-None-Match': etag ?? '' } });
    expect(changed.status).to.equal(200);
  });

  it('refreshes usage counters once they are older than the TTL', async () => {
    users = 5;
    // Within the TTL the cached figure stands.
    expect(
      ((await getJson(`${t.url}/api/v1/instance`)).body as { stats: { user_count: number } }).stats
        .user_count,
    ).to.equal(3);
    await t.ctx.instanceDocuments.refresh();
    expect(
      ((await getJson(`${t.url}/api/v1/instance`)).body as { stats: { user_count: number } }).stats
        .user_count,
    ).to.equal(5);
  });
});

describe('instance configuration from the environment', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('instance-env', {
      env: {
        INSTANCE_TITLE: 'Configured',
        REGISTRATIONS_OPEN: 'false',
        APPROVAL_REQUIRED: 'true',
        MAX_STATUS_CHARACTERS: '1000',
        STREAMING_URL: 'wss://stream.example.org',
        SOURCE_URL: 'https://code.example.org/agora',
        INSTANCE_THUMBNAIL_URL: 'https://cdn.example.org/banner.png',
      },
    });
  });
  after(async () => {
    await t?.stop();
  });

  it('uses the configured values in both versions', async () => {
    const v1 = (await getJson(`${t.url}/api/v1/instance`)).body as Record<string, unknown> & {
      configuration: { statuses: { max_characters: number } };
    };
    expect(v1).to.deep.include({
      title: 'Configured',
      registrations: false,
      approval_required: true,
      thumbnail: 'https://cdn.example.org/banner.png',
      urls: { streaming_api: 'wss://stream.example.org' },
    });
    expect(v1.configuration.statuses.max_characters).to.equal(1000);
    const v2 = (await getJson(`${t.url}/api/v2/instance`)).body as Record<string, unknown> & {
      configuration: { urls: { streaming: string } };
      registrations: unknown;
    };
    expect(v2.source_url).to.equal('https://code.example.org/agora');
    expect(v2.configuration.urls.streaming).to.equal('wss://stream.example.org');
    expect(v2.registrations).to.deep.include({ enabled: false, approval_required: true });
  });
});

describe('instance documents across processes', () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    a = await startTestServer('instance-pubsub');
    // A second process of the same service: same database, its own cache and pub/sub connection.
    b = await startTestServer('instance-pubsub-b', { databaseUrl: a.ctx.config.db.url ?? '' });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('re-renders in every process when one of them changes a setting', async () => {
    expect(((await getJson(`${b.url}/api/v1/instance`)).body as { title: string }).title).to.equal('Agora');
    // Subscribed after b's context, so this runs once b has started its re-render; it waits for that render
    // (and starts none: without the wiring, b would keep serving its cached 'Agora').
    const rerendered = new Promise<void>((resolve) => {
      void b.ctx.pubsub.subscribe(INSTANCE_CHANGED_CHANNEL, () => {
        void b.ctx.instanceDocuments.settled().then(resolve);
      });
    });
    await a.ctx.instance.updateSettings({ title: 'Shared' });
    await rerendered;
    expect(((await getJson(`${b.url}/api/v1/instance`)).body as { title: string }).title).to.equal('Shared');
    expect(((await getJson(`${b.url}/api/v2/instance`)).body as { title: string }).title).to.equal('Shared');
  });
});
