import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import sharp from 'sharp';
import { NOTIFY_UPDATE_JOB } from '../modules/notifications/notification.service.js';
import { FAN_OUT_JOB } from '../modules/statuses/status.service.js';
import { OOB, registerApp, signedInAccount, type TestApp } from '../testing/oauth-clients.js';
import { rest, type Json, type RestCall } from '../testing/rest-client.js';
import { startTestServer, type TestServer } from '../testing/server.js';

/**
 * The attributes each entity must carry, present even when empty (`null`, `[]`, `false`): for the
 * entities of `spec/microblog/entities_summary.txt`, every attribute it names that is neither
 * `(optional)` nor `(removed)`; for the others (Poll, List, Marker, Conversation, ScheduledStatus,
 * Announcement, Filter…, Preferences, grouped notifications), the attributes of their page on
 * docs.joinmastodon.org/entities (issue 15 §6; not-shown.md §2.3).
 */
const REQUIRED = {
  Account: [
    'id',
    'username',
    'acct',
    'url',
    'uri',
    'display_name',
    'note',
    'avatar',
    'avatar_static',
    'avatar_description',
    'header',
    'header_static',
    'header_description',
    'locked',
    'fields',
    'emojis',
    'bot',
    'group',
    'discoverable',
    'indexable',
    'created_at',
    'last_status_at',
    'statuses_count',
    'followers_count',
    'following_count',
    'hide_collections',
    'show_media',
    'show_media_replies',
    'show_featured',
    'roles',
    'feature_approval',
  ],
  CredentialAccount: ['source', 'role'],
  CredentialAccountSource: [
    'privacy',
    'sensitive',
    'language',
    'note',
    'fields',
    'follow_requests_count',
    'attribution_domains',
  ],
  MutedAccount: ['mute_expires_at'],
  AccountRole: ['id', 'name', 'color'],
  Field: ['name', 'value', 'verified_at'],
  FeatureApproval: ['automatic', 'manual', 'current_user'],
  Application: ['id', 'name', 'scopes', 'redirect_uris', 'redirect_uri', 'vapid_key'],
  CredentialApplication: ['client_id', 'client_secret', 'client_secret_expires_at'],
  Context: ['ancestors', 'descendants'],
  Error: ['error'],
  Instance: [
    'domain',
    'title',
    'version',
    'source_url',
    'description',
    'wrapstodon',
    'usage',
    'thumbnail',
    'icon',
    'languages',
    'configuration',
    'registrations',
    'api_versions',
    'contact',
    'rules',
  ],
  InstanceIcon: ['src', 'size'],
  V1_Instance: [
    'uri',
    'title',
    'short_description',
    'description',
    'email',
    'version',
    'urls',
    'stats',
    'thumbnail',
    'languages',
    'registrations',
    'approval_required',
    'invites_enabled',
    'configuration',
    'contact_account',
    'rules',
  ],
  Rule: ['id', 'text', 'hint'],
  MediaAttachment: ['id', 'type', 'url', 'preview_url', 'remote_url', 'meta', 'description', 'blurhash'],
  Notification: ['id', 'type', 'group_key', 'created_at', 'account'],
  Relationship: [
    'id',
    'following',
    'showing_reblogs',
    'notifying',
    'languages',
    'followed_by',
    'blocking',
    'blocked_by',
    'muting',
    'muting_notifications',
    'muting_expires_at',
    'requested',
    'requested_by',
    'domain_blocking',
    'endorsed',
    'note',
  ],
  Status: [
    'id',
    'uri',
    'created_at',
    'account',
    'content',
    'visibility',
    'sensitive',
    'spoiler_text',
    'media_attachments',
    'mentions',
    'tags',
    'emojis',
    'reblogs_count',
    'favourites_count',
    'quotes_count',
    'replies_count',
    'url',
    'in_reply_to_id',
    'in_reply_to_account_id',
    'reblog',
    'poll',
    'card',
    'language',
    'text',
    'edited_at',
    'quote',
    'quote_approval',
    'tagged_collections',
  ],
  /** A signed-in viewer's flags (optional in the docs, always sent to a user token here). */
  StatusViewer: ['favourited', 'reblogged', 'muted', 'bookmarked', 'filtered'],
  StatusMention: ['id', 'username', 'url', 'acct'],
  StatusTag: ['name', 'url'],
  QuoteApproval: ['automatic', 'manual', 'current_user'],
  Token: ['access_token', 'token_type', 'scope', 'created_at'],
  // docs.joinmastodon.org/entities/<name>:
  Poll: [
    'id',
    'expires_at',
    'expired',
    'multiple',
    'votes_count',
    'voters_count',
    'options',
    'emojis',
    'voted',
    'own_votes',
  ],
  PollOption: ['title', 'votes_count'],
  List: ['id', 'title', 'replies_policy', 'exclusive'],
  Marker: ['last_read_id', 'version', 'updated_at'],
  Conversation: ['id', 'accounts', 'unread', 'last_status'],
  ScheduledStatus: ['id', 'scheduled_at', 'params', 'media_attachments'],
  ScheduledStatusParams: [
    'text',
    'poll',
    'media_ids',
    'sensitive',
    'spoiler_text',
    'visibility',
    'in_reply_to_id',
    'language',
    'application_id',
    'scheduled_at',
    'idempotency',
    'with_rate_limit',
  ],
  Announcement: [
    'id',
    'content',
    'starts_at',
    'ends_at',
    'published',
    'all_day',
    'published_at',
    'updated_at',
    'read',
    'mentions',
    'statuses',
    'tags',
    'emojis',
    'reactions',
  ],
  Filter: ['id', 'title', 'context', 'expires_at', 'filter_action', 'keywords', 'statuses'],
  FilterKeyword: ['id', 'keyword', 'whole_word'],
  FilterStatus: ['id', 'status_id'],
  FilterResult: ['filter', 'keyword_matches', 'status_matches'],
  V1_Filter: ['id', 'phrase', 'context', 'expires_at', 'irreversible', 'whole_word'],
  Preferences: [
    'posting:default:visibility',
    'posting:default:sensitive',
    'posting:default:language',
    'reading:expand:media',
    'reading:expand:spoilers',
  ],
  GroupedNotificationsResults: ['accounts', 'statuses', 'notification_groups'],
  NotificationGroup: [
    'group_key',
    'notifications_count',
    'type',
    'most_recent_notification_id',
    'page_min_id',
    'page_max_id',
    'latest_page_notification_at',
    'sample_account_ids',
  ],
  StatusEdit: [
    'content',
    'spoiler_text',
    'sensitive',
    'created_at',
    'account',
    'poll',
    'media_attachments',
    'emojis',
  ],
  StatusSource: ['id', 'text', 'spoiler_text'],
} as const;

type EntityName = keyof typeof REQUIRED;

/** Asserts `value` is an object carrying every required attribute of `entity` (none left out). */
function has(entity: EntityName, value: unknown, where: string): Json {
  expect(value, `${where} (${entity}) is an object`).to.be.an('object').and.not.equal(null);
  const json = value as Json;
  const missing = REQUIRED[entity].filter((key) => !(key in json));
  expect(missing, `${where}: ${entity} attributes left out`).to.deep.equal([]);
  return json;
}

function account(value: unknown, where: string): Json {
  const json = has('Account', value, where);
  (json.fields as unknown[]).forEach((field, i) => has('Field', field, `${where}.fields[${i}]`));
  (json.roles as unknown[]).forEach((role, i) => has('AccountRole', role, `${where}.roles[${i}]`));
  has('FeatureApproval', json.feature_approval, `${where}.feature_approval`);
  return json;
}

function media(value: unknown, where: string): Json {
  return has('MediaAttachment', value, where);
}

function poll(value: unknown, where: string): Json {
  const json = has('Poll', value, where);
  (json.options as unknown[]).forEach((option, i) => has('PollOption', option, `${where}.options[${i}]`));
  return json;
}

function status(value: unknown, where: string, signedIn = true): Json {
  const json = has('Status', value, where);
  if (signedIn) has('StatusViewer', json, where);
  account(json.account, `${where}.account`);
  (json.media_attachments as unknown[]).forEach((item, i) => media(item, `${where}.media_attachments[${i}]`));
  (json.mentions as unknown[]).forEach((item, i) => has('StatusMention', item, `${where}.mentions[${i}]`));
  (json.tags as unknown[]).forEach((item, i) => has('StatusTag', item, `${where}.tags[${i}]`));
  has('QuoteApproval', json.quote_approval, `${where}.quote_approval`);
  if (json.poll !== null) poll(json.poll, `${where}.poll`);
  if (json.reblog !== null) status(json.reblog, `${where}.reblog`, signedIn);
  ((json.filtered as unknown[] | undefined) ?? []).forEach((item, i) =>
    has('FilterResult', item, `${where}.filtered[${i}]`),
  );
  return json;
}

const ID_EXCEPTIONS = new Set(['application_id']);

/**
 * Every id in a whole answer is a string (not-shown.md §2: "IDs are strings everywhere, also `*_id`"):
 * `id` and `*_id` keys hold a string or null, `*_ids` keys an array of strings.
 */
function idsAreStrings(value: unknown, where: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => idsAreStrings(item, `${where}[${i}]`));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    const path = `${where}.${key}`;
    if ((key === 'id' || key.endsWith('_id')) && !ID_EXCEPTIONS.has(key)) {
      expect(
        inner === null || typeof inner === 'string',
        `${path} is a string id (${JSON.stringify(inner)})`,
      ).to.equal(true);
    } else if (key.endsWith('_ids') && Array.isArray(inner)) {
      inner.forEach((item, i) => expect(item, `${path}[${i}] is a string id`).to.be.a('string'));
    }
    idsAreStrings(inner, path);
  }
}

// issue 15 §6: the entities exactly as §2.3 and entities_summary.txt list them, produced by real requests.
describe('entities audit: every attribute present and string ids, from real requests (issue 15 §6)', () => {
  let t: TestServer;
  let app: TestApp;
  const answers: Array<[string, unknown]> = [];

  /** A request whose answer is kept for the id walk at the end. */
  const call = async <T = Json>(path: string, options: RestCall = {}, status = 200): Promise<T> => {
    const answer = await rest<T>(t.url, path, options);
    expect(answer.status, `${options.method ?? 'GET'} ${path}: ${JSON.stringify(answer.body)}`).to.equal(
      status,
    );
    answers.push([`${options.method ?? 'GET'} ${path}`, answer.body]);
    return answer.body;
  };

  before(async () => {
    t = await startTestServer('entities-audit');
    app = await registerApp(t.url, 'Entities audit');
  });
  after(async () => {
    await t?.stop();
  });

  it('walks every serializer through the API', async () => {
    // Application, CredentialApplication, Token
    const created = await call('/api/v1/apps', {
      method: 'POST',
      json: { client_name: 'Audit', redirect_uris: OOB, scopes: 'read write follow push', website: null },
    });
    has('Application', created, 'POST /api/v1/apps');
    has('CredentialApplication', created, 'POST /api/v1/apps');
    const alice = await signedInAccount(t, app, 'alice');
    const bob = await signedInAccount(t, app, 'bob');
    const carol = await signedInAccount(t, app, 'carol');
    const token = await call('/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'client_credentials',
        client_id: created.client_id,
        client_secret: created.client_secret,
        redirect_uri: OOB,
        scope: 'read',
      },
    });
    has('Token', token, 'POST /oauth/token');
    has(
      'Application',
      await call('/api/v1/apps/verify_credentials', { token: token.access_token as string }),
      'apps/verify_credentials',
    );

    // Accounts
    const asAlice = { token: alice.token };
    const asBob = { token: bob.token };
    const credential = await call('/api/v1/accounts/verify_credentials', asAlice);
    account(credential, 'verify_credentials');
    has('CredentialAccount', credential, 'verify_credentials');
    has('CredentialAccountSource', credential.source, 'verify_credentials.source');
    const patched = await call('/api/v1/accounts/update_credentials', {
      ...asAlice,
      method: 'PATCH',
      json: {
        display_name: 'Alice',
        locked: true,
        fields_attributes: [{ name: 'Site', value: 'https://example.com' }],
      },
    });
    account(patched, 'update_credentials');
    account(await call(`/api/v1/accounts/${alice.id}`), 'GET accounts/:id');
    account(await call(`/api/v1/accounts/lookup?acct=alice`, asBob), 'accounts/lookup');

    // Relationships (a follow request to the locked account, then accepted)
    has(
      'Relationship',
      await call(`/api/v1/accounts/${alice.id}/follow`, { ...asBob, method: 'POST' }),
      'follow',
    );
    const requests = await call<Json[]>('/api/v1/follow_requests', asAlice);
    requests.forEach((item, i) => account(item, `follow_requests[${i}]`));
    has(
      'Relationship',
      await call(`/api/v1/follow_requests/${bob.id}/authorize`, { ...asAlice, method: 'POST' }),
      'authorize',
    );
    const relationships = await call<Json[]>(
      `/api/v1/accounts/relationships?id[]=${alice.id}&id[]=${carol.id}`,
      asBob,
    );
    expect(relationships).to.have.length(2);
    relationships.forEach((item, i) => has('Relationship', item, `relationships[${i}]`));
    has(
      'Relationship',
      await call(`/api/v1/accounts/${carol.id}/mute`, { ...asBob, method: 'POST', json: { duration: 3600 } }),
      'mute',
    );
    const mutes = await call<Json[]>('/api/v1/mutes', asBob);
    expect(mutes).to.have.length(1);
    account(mutes[0], 'mutes[0]');
    has('MutedAccount', mutes[0], 'mutes[0]');
    (await call<Json[]>(`/api/v1/accounts/${alice.id}/followers`)).forEach((item, i) =>
      account(item, `followers[${i}]`),
    );

    // Media, statuses with mentions, tags, a poll, a reply and a reblog
    const png = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    const uploaded = await createRestAPIClient({ url: t.url, accessToken: alice.token }).v2.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
      description: 'blue',
    });
    const mediaJson = await call(`/api/v1/media/${uploaded.id}`, asAlice);
    media(mediaJson, 'GET media/:id');
    const withMedia = await call('/api/v1/statuses', {
      ...asAlice,
      method: 'POST',
      json: {
        status: 'Hi @bob and #audit',
        media_ids: [uploaded.id],
        spoiler_text: 'cw',
        visibility: 'public',
      },
    });
    status(withMedia, 'POST statuses');
    expect((withMedia.mentions as unknown[]).length).to.equal(1);
    expect((withMedia.tags as unknown[]).length).to.equal(1);
    const withPoll = await call('/api/v1/statuses', {
      ...asAlice,
      method: 'POST',
      json: { status: 'Cats or dogs?', poll: { options: ['cats', 'dogs'], expires_in: 3600 } },
    });
    status(withPoll, 'POST statuses (poll)');
    poll(
      await call(`/api/v1/polls/${(withPoll.poll as Json).id as string}/votes`, {
        ...asBob,
        method: 'POST',
        json: { choices: [0] },
      }),
      'poll vote',
    );
    poll(await call(`/api/v1/polls/${(withPoll.poll as Json).id as string}`, asBob), 'GET polls/:id');
    const reply = await call('/api/v1/statuses', {
      ...asBob,
      method: 'POST',
      json: { status: '@alice nice', in_reply_to_id: withMedia.id },
    });
    status(reply, 'reply');
    status(
      await call(`/api/v1/statuses/${withMedia.id as string}/favourite`, { ...asBob, method: 'POST' }),
      'favourite',
    );
    status(
      await call(`/api/v1/statuses/${withMedia.id as string}/reblog`, { ...asBob, method: 'POST' }),
      'reblog',
    );
    status(await call(`/api/v1/statuses/${withMedia.id as string}`), 'GET statuses/:id anonymously', false);
    const context = has(
      'Context',
      await call(`/api/v1/statuses/${withMedia.id as string}/context`, asBob),
      'context',
    );
    expect(context.descendants).to.have.length(1);
    (context.descendants as unknown[]).forEach((item, i) => status(item, `context.descendants[${i}]`));
    await call(`/api/v1/statuses/${withMedia.id as string}`, {
      ...asAlice,
      method: 'PUT',
      json: { status: 'Hi @bob and #audit (edited)', media_ids: [uploaded.id] },
    });
    const history = await call<Json[]>(`/api/v1/statuses/${withMedia.id as string}/history`, asAlice);
    history.forEach((item, i) => {
      has('StatusEdit', item, `history[${i}]`);
      account(item.account, `history[${i}].account`);
    });
    has('StatusSource', await call(`/api/v1/statuses/${withMedia.id as string}/source`, asAlice), 'source');
    const deleted = status(
      await call(`/api/v1/statuses/${reply.id as string}`, { ...asBob, method: 'DELETE' }),
      'DELETE',
    );
    expect(deleted.text).to.equal('@alice nice');
    await call('/api/v1/statuses', { token: carol.token, method: 'POST', json: { status: '@alice hello' } });
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);

    // Timelines and the account's statuses (reblog wrapper with its original)
    for (const path of [
      '/api/v1/timelines/home',
      '/api/v1/timelines/public',
      '/api/v1/timelines/tag/audit',
      `/api/v1/accounts/${bob.id}/statuses`,
    ]) {
      const list = await call<Json[]>(path, asBob);
      expect(list.length, path).to.be.greaterThan(0);
      list.forEach((item, i) => status(item, `${path}[${i}]`));
    }

    // Notifications v1 and v2 (mention, follow_request, follow, favourite, reblog)
    const notifications = await call<Json[]>('/api/v1/notifications', asAlice);
    expect(notifications.map((n) => n.type)).to.include.members(['favourite', 'reblog', 'mention']);
    for (const [i, item] of notifications.entries()) {
      has('Notification', item, `notifications[${i}]`);
      account(item.account, `notifications[${i}].account`);
      if (['mention', 'status', 'reblog', 'favourite', 'poll', 'update'].includes(item.type as string)) {
        status(item.status, `notifications[${i}].status`);
      }
    }
    const grouped = has(
      'GroupedNotificationsResults',
      await call('/api/v2/notifications', asAlice),
      'v2 notifications',
    );
    (grouped.notification_groups as unknown[]).forEach((item, i) =>
      has('NotificationGroup', item, `notification_groups[${i}]`),
    );
    (grouped.accounts as unknown[]).forEach((item, i) => account(item, `v2.accounts[${i}]`));
    (grouped.statuses as unknown[]).forEach((item, i) => status(item, `v2.statuses[${i}]`));

    // Lists, markers, conversations, scheduled statuses, announcements, preferences
    has(
      'List',
      await call('/api/v1/lists', { ...asBob, method: 'POST', json: { title: 'Friends' } }),
      'POST lists',
    );
    (await call<Json[]>('/api/v1/lists', asBob)).forEach((item, i) => has('List', item, `lists[${i}]`));
    const markers = await call('/api/v1/markers', {
      ...asBob,
      method: 'POST',
      json: { home: { last_read_id: withMedia.id }, notifications: { last_read_id: '1' } },
    });
    has('Marker', markers.home, 'POST markers.home');
    const readMarkers = await call('/api/v1/markers?timeline[]=home&timeline[]=notifications', asBob);
    has('Marker', readMarkers.home, 'markers.home');
    has('Marker', readMarkers.notifications, 'markers.notifications');
    await call('/api/v1/statuses', {
      ...asAlice,
      method: 'POST',
      json: { status: '@bob psst', visibility: 'direct' },
    });
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
    const conversations = await call<Json[]>('/api/v1/conversations', asBob);
    expect(conversations).to.have.length(1);
    conversations.forEach((item, i) => {
      has('Conversation', item, `conversations[${i}]`);
      (item.accounts as unknown[]).forEach((a, j) => account(a, `conversations[${i}].accounts[${j}]`));
      status(item.last_status, `conversations[${i}].last_status`);
    });
    const scheduled = await call('/api/v1/statuses', {
      ...asAlice,
      method: 'POST',
      json: { status: 'later', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    has('ScheduledStatus', scheduled, 'POST statuses (scheduled)');
    has('ScheduledStatusParams', scheduled.params, 'scheduled.params');
    (await call<Json[]>('/api/v1/scheduled_statuses', asAlice)).forEach((item, i) =>
      has('ScheduledStatus', item, `scheduled_statuses[${i}]`),
    );
    await t.ctx.announcements.create({ text: 'Welcome, @alice! #audit' });
    const announcements = await call<Json[]>('/api/v1/announcements', asBob);
    expect(announcements).to.have.length(1);
    announcements.forEach((item, i) => has('Announcement', item, `announcements[${i}]`));
    has('Preferences', await call('/api/v1/preferences', asBob), 'preferences');

    // Filters v2 (with keywords and statuses), v1, and a FilterResult on a timeline
    const filter = await call('/api/v2/filters', {
      ...asBob,
      method: 'POST',
      json: {
        title: 'Audit',
        context: ['home', 'public', 'account'],
        filter_action: 'warn',
        keywords_attributes: [{ keyword: 'audit' }],
      },
    });
    has('Filter', filter, 'POST v2 filters');
    (filter.keywords as unknown[]).forEach((item, i) => has('FilterKeyword', item, `filter.keywords[${i}]`));
    has(
      'FilterStatus',
      await call(`/api/v2/filters/${filter.id as string}/statuses`, {
        ...asBob,
        method: 'POST',
        json: { status_id: withPoll.id },
      }),
      'filter status',
    );
    const filteredPage = await call<Json[]>(`/api/v1/accounts/${alice.id}/statuses`, asBob);
    const matched = filteredPage.find((item) => item.id === withMedia.id)!;
    expect(matched.filtered).to.have.length(1);
    status(matched, 'filtered status');
    has('Filter', (matched.filtered as Json[])[0]!.filter, 'filtered[0].filter');
    has(
      'V1_Filter',
      await call('/api/v1/filters', {
        ...asBob,
        method: 'POST',
        json: { phrase: 'dogs', context: ['home'] },
      }),
      'POST v1 filters',
    );

    // Instance v1 and v2, errors
    const v1 = has('V1_Instance', await call('/api/v1/instance'), 'instance v1');
    (v1.rules as unknown[]).forEach((item, i) => has('Rule', item, `v1.rules[${i}]`));
    const v2 = has('Instance', await call('/api/v2/instance'), 'instance v2');
    (v2.icon as unknown[]).forEach((item, i) => has('InstanceIcon', item, `v2.icon[${i}]`));
    has('Error', await call('/api/v1/statuses/0', {}, 404), 'a 404');
    has('Error', await call('/api/v1/timelines/home', {}, 401), 'a 401');

    // Every id of every answer above is a string.
    for (const [where, body] of answers) idsAreStrings(body, where);
  });
});
