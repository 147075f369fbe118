import { expect } from 'chai';
import { createOAuthAPIClient, createRestAPIClient, MastoHttpError } from 'masto';
import { Mastodon } from 'megalodon';
import { QueryTypes } from 'sequelize';
import { ipSubject, MICROBLOG_POLICIES, RateLimiter } from '@agora/auth';
import { readMailFolder } from '@agora/core/testing';
import { createSequelize, type Sequelize } from '@agora/db';
import { seedAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { createMicroblogTestDatabase, startTestServer, type TestServer } from '../../testing/server.js';

const OOB = 'urn:ietf:wg:oauth:2.0:oob';

const FIELD: Shape = { name: 'string', value: 'string', verified_at: 'string|null' };
const ACCOUNT: Shape = {
  id: 'string',
  username: 'string',
  acct: 'string',
  display_name: 'string',
  locked: 'boolean',
  bot: 'boolean',
  discoverable: 'boolean|null',
  indexable: 'boolean',
  group: 'boolean',
  created_at: 'string',
  note: 'string',
  url: 'string|null',
  uri: 'string',
  avatar: 'string',
  avatar_static: 'string',
  header: 'string',
  header_static: 'string',
  avatar_description: 'string',
  header_description: 'string',
  followers_count: 'number',
  following_count: 'number',
  statuses_count: 'number',
  last_status_at: 'string|null',
  hide_collections: 'boolean|null',
  show_media: 'boolean',
  show_media_replies: 'boolean',
  show_featured: 'boolean',
  feature_approval: { automatic: 'array', manual: 'array', current_user: 'string' },
  noindex: 'boolean',
  emojis: ['object'],
  roles: ['object'],
  fields: [FIELD],
};
const CREDENTIAL_ACCOUNT: Shape = {
  ...ACCOUNT,
  source: {
    privacy: 'string',
    sensitive: 'boolean',
    language: 'string|null',
    note: 'string',
    fields: [FIELD],
    follow_requests_count: 'number',
    hide_collections: 'boolean',
    filtered_languages: ['string'],
    discoverable: 'boolean',
    indexable: 'boolean',
    attribution_domains: ['string'],
  },
  role: { id: 'string', name: 'string', permissions: 'string', color: 'string', highlighted: 'boolean' },
};

interface App {
  clientId: string;
  clientSecret: string;
}

/** Registers an app and returns it with a client_credentials token, as a sign-up client does. */
async function appWithToken(url: string, scopes = 'read write'): Promise<App & { token: string }> {
  const oauth = createOAuthAPIClient({ url });
  const app = await createRestAPIClient({ url }).v1.apps.create({
    clientName: 'Sign-up test',
    redirectUris: OOB,
    scopes,
  });
  const token = await oauth.token.create({
    grantType: 'client_credentials',
    redirectUri: OOB,
    clientId: app.clientId!,
    clientSecret: app.clientSecret!,
    scope: scopes,
  });
  return { clientId: app.clientId!, clientSecret: app.clientSecret!, token: token.accessToken };
}

async function userCount(sequelize: Sequelize, email: string): Promise<number> {
  const [row] = await sequelize.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM users WHERE lower(email) = lower($1)',
    { bind: [email], type: QueryTypes.SELECT },
  );
  return row?.count ?? 0;
}

describe('accounts: sign-up, credentials, lookup, early API', () => {
  let t: TestServer;
  let app: App & { token: string };

  before(async () => {
    t = await startTestServer('accounts');
    app = await appWithToken(t.url);
  });
  after(async () => {
    await t?.stop();
  });

  /** The confirmation link mailed to `email` (the newest one). */
  async function confirmationLink(email: string): Promise<string> {
    const mails = (await readMailFolder(t.ctx.config.mail.dir)).filter(
      (mail) => mail.to.toLowerCase() === email,
    );
    const link = /http:\/\/\S+\/auth\/confirmation\?confirmation_token=\S+/.exec(
      mails.at(-1)?.text ?? '',
    )?.[0];
    expect(link, `a confirmation link mailed to ${email}`).to.be.a('string');
    return link!;
  }

  async function passwordToken(email: string, password: string): Promise<string> {
    const issued = await createOAuthAPIClient({ url: t.url }).token.create({
      grantType: 'password',
      redirectUri: OOB,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      username: email,
      password,
      scope: 'read write',
    });
    return issued.accessToken;
  }

  it('masto.js signs up with an app token, confirms by e-mail, signs in, updates and reads the profile', async () => {
    const signUp = createRestAPIClient({ url: t.url, accessToken: app.token });
    const created = await signUp.v1.accounts.create({
      username: 'alice',
      email: 'Alice@Example.com',
      password: 'correct horse battery',
      agreement: true,
      locale: 'en',
    });
    expect(created.tokenType).to.equal('Bearer');
    expect(created.scope).to.equal('read write');

    // The token exists before confirmation, but is refused until the address is confirmed.
    const early = await rest(t.url, '/api/v1/accounts/verify_credentials', { token: created.accessToken });
    expect(early.status).to.equal(403);
    expect(early.body).to.deep.equal({ error: 'Your login is missing a confirmed e-mail address' });

    const link = await confirmationLink('alice@example.com');
    const confirmed = await fetch(link);
    expect(confirmed.status).to.equal(200);
    expect(await confirmed.text()).to.include('confirmed');
    expect((await fetch(link)).status, 'a link works once').to.equal(404);

    const userToken = await passwordToken('alice@example.com', 'correct horse battery');
    const alice = createRestAPIClient({ url: t.url, accessToken: userToken });
    const before = await alice.v1.accounts.verifyCredentials();
    expect(before).to.deep.include({
      username: 'alice',
      acct: 'alice',
      displayName: '',
      note: '',
      locked: false,
    });
    expect(before.url).to.equal(`${t.url}/@alice`);
    expect((before as unknown as { uri: string }).uri).to.equal(`${t.url}/users/alice`);
    expect(before.avatar).to.equal(`${t.url}/avatars/original/missing.png`);
    expect(before.createdAt).to.match(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    expect(before.source).to.deep.include({ privacy: 'public', sensitive: false, note: '' });
    expect(before.role).to.deep.include({ name: '', permissions: '65536' });
    // The sign-up token works too, now that the address is confirmed.
    const viaSignUpToken = await rest(t.url, '/api/v1/accounts/verify_credentials', {
      token: created.accessToken,
    });
    expect(viaSignUpToken.status).to.equal(200);
    expectShape(viaSignUpToken.body, CREDENTIAL_ACCOUNT);

    const updated = await alice.v1.accounts.updateCredentials({
      displayName: 'Alice Liddell',
      note: 'Curiouser & curiouser.\n\n<b>Down</b> the rabbit hole\nand back',
      locked: true,
      fieldsAttributes: [
        { name: 'Pronouns', value: 'she/her' },
        { name: 'Site', value: 'https://alice.example/<script>' },
      ],
    });
    expect(updated).to.deep.include({ displayName: 'Alice Liddell', locked: true });
    expect(updated.note).to.equal(
      '<p>Curiouser &amp; curiouser.</p><p>&lt;b&gt;Down&lt;/b&gt; the rabbit hole<br />and back</p>',
    );
    expect(updated.source.note).to.equal('Curiouser & curiouser.\n\n<b>Down</b> the rabbit hole\nand back');
    expect(updated.fields).to.deep.equal([
      { name: 'Pronouns', value: 'she/her', verifiedAt: null },
      { name: 'Site', value: 'https://alice.example/&lt;script&gt;', verifiedAt: null },
    ]);
    expect(updated.source.fields.map((field) => field.value)).to.deep.equal([
      'she/her',
      'https://alice.example/<script>',
    ]);

    const reread = await alice.v1.accounts.verifyCredentials();
    expect(reread).to.deep.include({ displayName: 'Alice Liddell', locked: true, note: updated.note });
    expect(reread.fields).to.deep.equal(updated.fields);

    const anonymous = createRestAPIClient({ url: t.url });
    const looked = await anonymous.v1.accounts.lookup({ acct: 'ALICE' });
    expect(looked).to.deep.include({ id: reread.id, displayName: 'Alice Liddell' });
    const host = new URL(t.url).host;
    expect((await anonymous.v1.accounts.lookup({ acct: `@alice@${host}` })).id).to.equal(reread.id);
    const fetched = await rest(t.url, `/api/v1/accounts/${reread.id}`);
    expect(fetched.status).to.equal(200);
    expectShape(fetched.body, ACCOUNT);
    expect(fetched.body).to.not.have.property('source');
  });

  it('megalodon reads verify_credentials', async () => {
    const bob = await seedAccount(t, 'bob');
    const client = new Mastodon(t.url, await passwordToken(bob.email, bob.password));
    const { data } = await client.verifyAccountCredentials();
    expect(data).to.deep.include({ id: bob.id, username: 'bob', acct: 'bob', locked: false });
    expect(data.source?.privacy).to.equal('public');
  });

  it('refuses a taken username, in any case, with 422 ERR_TAKEN and leaves no user behind', async () => {
    await seedAccount(t, 'carol');
    const { status, body } = await rest(t.url, '/api/v1/accounts', {
      method: 'POST',
      token: app.token,
      json: {
        username: 'Carol',
        email: 'other-carol@example.com',
        password: 'long enough pw',
        agreement: true,
      },
    });
    expect(status).to.equal(422);
    expect(body).to.deep.equal({
      error: 'Validation failed: Username has already been taken',
      details: { username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] },
    });
    expect(await userCount(t.ctx.sequelize, 'other-carol@example.com')).to.equal(0);
  });

  it('reports every invalid field at once, in the details masto.js reads', async () => {
    try {
      await createRestAPIClient({ url: t.url, accessToken: app.token }).v1.accounts.create({
        username: 'admin',
        email: 'not-an-address',
        password: 'short',
        agreement: false,
        locale: 'xx-!!',
      });
      expect.fail('the sign-up should be refused');
    } catch (error) {
      expect(error).to.be.instanceOf(MastoHttpError);
      const http = error as MastoHttpError;
      expect(http.statusCode).to.equal(422);
      expect(http.message).to.match(/^Validation failed: Username is reserved, Email is invalid, /);
      expect(http.details).to.deep.equal({
        username: [{ error: 'ERR_RESERVED', description: 'is reserved' }],
        email: [{ error: 'ERR_INVALID', description: 'is invalid' }],
        password: [{ error: 'ERR_TOO_SHORT', description: 'is too short (minimum is 8 characters)' }],
        agreement: [{ error: 'ERR_ACCEPTED', description: 'must be accepted' }],
        locale: [{ error: 'ERR_INCLUSION', description: 'is not included in the list' }],
      });
    }
    expect(await userCount(t.ctx.sequelize, 'not-an-address')).to.equal(0);
  });

  it('needs an app token with write:accounts, and open registrations', async () => {
    const anonymous = await rest(t.url, '/api/v1/accounts', { method: 'POST', json: { username: 'x' } });
    expect(anonymous.status).to.equal(401);

    await t.ctx.instance.updateSettings({ registrationsOpen: false });
    try {
      const closed = await rest(t.url, '/api/v1/accounts', {
        method: 'POST',
        token: app.token,
        json: { username: 'dave', email: 'dave@example.com', password: 'long enough pw', agreement: true },
      });
      expect(closed.status).to.equal(403);
      expect(closed.body).to.deep.equal({ error: 'This action is not allowed' });
      expect(await userCount(t.ctx.sequelize, 'dave@example.com')).to.equal(0);
    } finally {
      await t.ctx.instance.updateSettings({ registrationsOpen: true });
    }
  });

  it('verify_credentials refuses a missing token (401) and an app token (422)', async () => {
    const none = await rest(t.url, '/api/v1/accounts/verify_credentials');
    expect(none).to.deep.include({ status: 401, body: { error: 'The access token is invalid' } });
    const appOnly = await rest(t.url, '/api/v1/accounts/verify_credentials', { token: app.token });
    expect(appOnly).to.deep.include({
      status: 422,
      body: { error: 'This method requires an authenticated user' },
    });
  });

  it('update_credentials takes Rails-style forms: indexed fields, source[…], bot; and validates lengths', async () => {
    const erin = await seedAccount(t, 'erin');
    const token = await passwordToken(erin.email, erin.password);
    const form = new URLSearchParams({
      display_name: 'Erin',
      'fields_attributes[1][name]': 'Second',
      'fields_attributes[1][value]': 'two',
      'fields_attributes[0][name]': 'First',
      'fields_attributes[0][value]': 'one',
      'source[privacy]': 'unlisted',
      'source[sensitive]': '1',
      'source[language]': 'fr',
      bot: 'true',
      discoverable: 'false',
      hide_collections: '1',
    });
    const patched = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token,
      body: form,
    });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.deep.include({ display_name: 'Erin', bot: true, discoverable: false });
    expect((patched.body.fields as Json[]).map((field) => field.name)).to.deep.equal(['First', 'Second']);
    expect(patched.body.source).to.deep.include({ privacy: 'unlisted', sensitive: true, language: 'fr' });
    expect((await t.ctx.actors.findById(erin.id))?.type).to.equal('Service');
    expect((await rest(t.url, `/api/v1/accounts/${erin.id}`)).body).to.deep.include({
      bot: true,
      hide_collections: true,
    });

    const tooLong = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token,
      json: {
        display_name: 'x'.repeat(31),
        fields_attributes: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: 'v' })),
      },
    });
    expect(tooLong.status).to.equal(422);
    expect(tooLong.body.error).to.equal(
      'Validation failed: Display name is too long (maximum is 30 characters), Fields is too long (maximum is 4 characters)',
    );
    // Nothing of the refused update was kept.
    expect((await rest(t.url, `/api/v1/accounts/${erin.id}`)).body.display_name).to.equal('Erin');

    const badPrivacy = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token,
      json: { source: { privacy: 'direct' } },
    });
    expect(badPrivacy.status).to.equal(422);
  });

  it('answers 404 "Record not found" for unknown ids and accts', async () => {
    for (const path of [
      '/api/v1/accounts/999999',
      '/api/v1/accounts/not-an-id',
      '/api/v1/accounts/lookup?acct=nobody',
      '/api/v1/accounts/lookup?acct=alice@elsewhere.example',
      '/api/v1/accounts/lookup',
    ]) {
      const { status, body } = await rest(t.url, path);
      expect({ path, status, body }).to.deep.equal({
        path,
        status: 404,
        body: { error: 'Record not found' },
      });
    }
  });

  it('early API: GET /api/accounts/:id with HTTP basic', async () => {
    const frank = await seedAccount(t, 'frank');
    const basic = (password: string) =>
      `Basic ${Buffer.from(`${frank.email}:${password}`).toString('base64')}`;
    const good = await rest(t.url, `/api/accounts/${frank.id}`, {
      headers: { Authorization: basic(frank.password) },
    });
    expect(good.status).to.equal(200);
    expect(good.body).to.deep.include({ id: frank.id, username: 'frank', acct: 'frank' });

    const bad = await rest(t.url, `/api/accounts/${frank.id}`, {
      headers: { Authorization: basic('wrong password') },
    });
    expect(bad.status).to.equal(401);
    expect(bad.headers.get('www-authenticate')).to.match(/^Basic realm="[^"]+"$/);
    const none = await rest(t.url, `/api/accounts/${frank.id}`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate')).to.match(/^Basic realm=/);
  });

  it('serves the default avatar and header as PNG images', async () => {
    for (const path of ['/avatars/original/missing.png', '/headers/original/missing.png']) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('image/png');
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.subarray(1, 4).toString('latin1')).to.equal('PNG');
    }
  });

  it('sends X-RateLimit headers: per IP without a token, the per-token limit with one', async () => {
    const anonymous = await rest(t.url, '/api/v1/accounts/lookup?acct=carol');
    expect(anonymous.headers.get('x-ratelimit-limit')).to.equal('300');
    expect(Number(anonymous.headers.get('x-ratelimit-remaining'))).to.be.within(0, 299);
    expect(new Date(anonymous.headers.get('x-ratelimit-reset') ?? '').getTime()).to.be.greaterThan(
      Date.now(),
    );

    const gina = await seedAccount(t, 'gina');
    const token = await passwordToken(gina.email, gina.password);
    const first = await rest(t.url, '/api/v1/accounts/verify_credentials', { token });
    const second = await rest(t.url, '/api/v1/accounts/verify_credentials', { token });
    // 300 per token is closer to exhaustion than 1500 per user.
    expect(first.headers.get('x-ratelimit-limit')).to.equal('300');
    expect(first.headers.get('x-ratelimit-remaining')).to.equal('299');
    expect(second.headers.get('x-ratelimit-remaining')).to.equal('298');
    // Unknown API paths are counted and answered in JSON too.
    const missing = await rest(t.url, '/api/v1/nothing-here');
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('x-ratelimit-limit')).to.equal('300');
  });
});

describe('accounts: sign-up atomicity and rate limits (clock pinned)', () => {
  const NOW = new Date('2026-11-22T10:00:10.000Z');
  let t: TestServer;
  let sequelize: Sequelize;
  let db: { url: string; drop(): Promise<void> };
  let rateLimiter: RateLimiter;

  before(async () => {
    db = await createMicroblogTestDatabase('accounts_limits');
    sequelize = createSequelize({ url: db.url });
    rateLimiter = new RateLimiter(sequelize, { now: () => NOW });
    t = await startTestServer('accounts-limits', { databaseUrl: db.url, overrides: { rateLimiter } });
  });
  after(async () => {
    await t?.stop();
    await sequelize?.close();
    await db?.drop();
  });

  it('writes nothing when the sign-up fails halfway (the account insert fails after the user insert)', async () => {
    const { sequelize: db } = t.ctx;
    await rateLimiter.reset(MICROBLOG_POLICIES.signUp, ipSubject('127.0.0.1'));
    await db.query(`
      CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await db.query(
      "CREATE TRIGGER refuse_boom BEFORE INSERT ON actors FOR EACH ROW WHEN (NEW.username = 'boom') EXECUTE FUNCTION refuse_boom()",
    );
    try {
      const app = await appWithToken(t.url);
      const failed = await rest(t.url, '/api/v1/accounts', {
        method: 'POST',
        token: app.token,
        json: { username: 'boom', email: 'boom@example.com', password: 'long enough pw', agreement: true },
      });
      expect(failed).to.deep.include({ status: 500, body: { error: 'Internal server error' } });
      expect(await userCount(db, 'boom@example.com')).to.equal(0);
      const [tokens] = await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM oauth_access_tokens WHERE user_id IS NOT NULL',
        { type: QueryTypes.SELECT },
      );
      expect(tokens?.count).to.equal(0);
    } finally {
      await db.query('DROP TRIGGER refuse_boom ON actors');
      await db.query('DROP FUNCTION refuse_boom()');
    }
  });

  it('refuses the 6th sign-up from one IP in 30 minutes, before looking at the request', async () => {
    await rateLimiter.reset(MICROBLOG_POLICIES.signUp, ipSubject('127.0.0.1'));
    const app = await appWithToken(t.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const response = await fetch(`${t.url}/api/v1/accounts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${app.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: '', agreement: false }),
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.headers.get('x-ratelimit-limit')).to.equal('5');
        expect(response.headers.get('x-ratelimit-reset')).to.equal('2026-11-22T10:30:00.000Z');
      }
      await response.body?.cancel();
    }
    expect(statuses).to.deep.equal([422, 422, 422, 422, 422, 429]);
  });

  it('refuses the 301st unauthenticated request in a 5-minute window with 429 and the headers', async () => {
    // A fresh window for this address (the sign-up test above spent some of it).
    await rateLimiter.reset(MICROBLOG_POLICIES.apiIp, ipSubject('127.0.0.1'));
    const limit = MICROBLOG_POLICIES.apiIp.limit;
    const statuses: number[] = [];
    for (let sent = 0; sent < limit; sent += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, limit - sent) }, () =>
          fetch(`${t.url}/api/v1/accounts/lookup?acct=x`),
        ),
      );
      for (const response of batch) {
        statuses.push(response.status);
        await response.body?.cancel();
      }
    }
    expect(statuses.every((status) => status === 404)).to.equal(true);

    const refused = await rest(t.url, '/api/v1/instance');
    expect(refused.status).to.equal(429);
    expect(refused.body).to.deep.equal({ error: 'Too many requests' });
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('300');
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(refused.headers.get('x-ratelimit-reset')).to.equal('2026-11-22T10:05:00.000Z');
    expect(refused.headers.get('retry-after')).to.equal('290');
  });
});
