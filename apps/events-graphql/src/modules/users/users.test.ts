import { readFileSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { JwtSessions } from '@agora/auth';
import { ConfigError, REDACTED_PATHS } from '@agora/core';
import { loadConfig } from '../../config/config.js';
import {
  firstErrorFields,
  freshIp,
  gql,
  graphql,
  mailedToken as linkToken,
  ok,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { jwtSecretFile } from './jwt-secret.js';

const USER_FIELDS = 'id email role locale confirmedAt confirmationSentAt disabled provider';

type Fields = Record<string, string | boolean | null>;

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code');

const CREATE = `mutation($email: String!, $password: String!) {
  createUser(email: $email, password: $password, locale: "fr") { ${USER_FIELDS} } }`;
const VALIDATE = `mutation($token: String!) {
  validateUser(token: $token) { accessToken refreshToken user { ${USER_FIELDS} } } }`;
const LOGIN = `mutation($email: String!, $password: String!) {
  login(email: $email, password: $password) { accessToken refreshToken user { id email } } }`;
const REFRESH = `mutation($refreshToken: String!) { refreshToken(refreshToken: $refreshToken) { accessToken refreshToken } }`;
const LOGOUT = `mutation($refreshToken: String!) { logout(refreshToken: $refreshToken) }`;
const LOGGED_USER = `{ loggedUser { ${USER_FIELDS} } }`;

interface Session {
  accessToken: string;
  refreshToken: string;
  user: Fields & { id: string };
}

/** A confirmed account, signed in. */
async function signedUp(server: TestServer, email: string, password = 'correct horse') {
  ok(await gql(server, CREATE, { variables: { email, password } }), 'createUser');
  const token = await linkToken(server, email, 'validate');
  return ok<Session>(await gql(server, VALIDATE, { variables: { token } }), 'validateUser');
}

/** Sets a user's role directly: granting the first administrator is the admin tool's job. */
async function promote(server: TestServer, id: string, role: string) {
  await server.ctx.sequelize.query('UPDATE users SET role = $1 WHERE id = $2', { bind: [role, id] });
}

describe('users', () => {
  let server: TestServer;
  const lines: string[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    server = await startTestServer(
      'users',
      { REGISTRATIONS_OPEN: 'true', TRUST_PROXY: 'true', PUBLIC_URL: 'https://events.test' },
      { logger },
    );
  });
  after(() => server?.stop());

  it('registers, confirms by the mailed link, signs in, refreshes with rotation and logs out', async () => {
    const email = 'alice@example.org';
    const created = ok(
      await gql(server, CREATE, { variables: { email, password: 'correct horse' } }),
      'createUser',
    );
    expect(created).to.include({ email, role: 'USER', locale: 'fr', confirmedAt: null });

    // Unconfirmed: signing in is refused as if the account did not exist.
    const early = await gql(server, LOGIN, { variables: { email, password: 'correct horse' } });
    expect(firstError(early)).to.deep.equal({
      message: 'User not found',
      code: 'user_not_found',
      status_code: 404,
    });

    const token = await linkToken(server, email, 'validate');
    const validated = ok<Session>(await gql(server, VALIDATE, { variables: { token } }), 'validateUser');
    expect(validated.user.confirmedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // A confirmation token works once.
    expect(firstError(await gql(server, VALIDATE, { variables: { token } })).message).to.be.a('string');

    const login = await gql(server, LOGIN, { variables: { email, password: 'correct horse' } });
    const { accessToken, refreshToken } = ok<Session>(login, 'login');
    expect(ok(await gql(server, LOGGED_USER, { token: accessToken }), 'loggedUser')).to.include({
      email,
      role: 'USER',
    });

    const pair = ok<Session>(await gql(server, REFRESH, { variables: { refreshToken } }), 'refreshToken');
    expect(pair.refreshToken).to.not.equal(refreshToken);
    expect(ok(await gql(server, LOGGED_USER, { token: pair.accessToken }), 'loggedUser').email).to.equal(
      email,
    );

    const loggedOut = await gql(server, LOGOUT, {
      token: pair.accessToken,
      variables: { refreshToken: pair.refreshToken },
    });
    expect(ok<string>(loggedOut, 'logout')).to.equal(pair.refreshToken);
    for (const spent of [pair.refreshToken, refreshToken]) {
      expect(firstError(await gql(server, REFRESH, { variables: { refreshToken: spent } }))).to.deep.equal({
        message: 'Cannot refresh the token',
        code: 'unknown_error',
        status_code: 500,
      });
    }
  });

  it('refuses a wrong password, an unknown email, and changes nothing', async () => {
    const email = 'bob@example.org';
    await signedUp(server, email);
    const wrong = await gql(server, LOGIN, { variables: { email, password: 'not the one' } });
    expect(firstError(wrong)).to.deep.equal({
      message: 'Impossible to authenticate, either your email or password are invalid.',
      code: 'unknown_error',
      status_code: 500,
    });
    const unknown = await gql(server, LOGIN, {
      variables: { email: 'nobody@example.org', password: 'whatever1' },
    });
    expect(firstError(unknown)).to.deep.equal({
      message: 'User not found',
      code: 'user_not_found',
      status_code: 404,
    });
    expect(
      (await gql(server, LOGIN, { variables: { email, password: 'correct horse' } })).body.errors,
    ).to.equal(undefined);
  });

  // Issue 12 §2: a blank e-mail reached the per-e-mail rate limit, which threw (a 500).
  it('answers a blank email with the usual refusals, never a 500', async () => {
    for (const email of ['', ' ']) {
      const login = await gql(server, LOGIN, { variables: { email, password: 'whatever1' } });
      expect(firstError(login)).to.deep.equal({
        message: 'User not found',
        code: 'user_not_found',
        status_code: 404,
      });
      const created = firstError(await gql(server, CREATE, { variables: { email, password: 'whatever1' } }));
      expect(created).to.include({ code: 'validation', status_code: 422 });
    }
  });

  it('answers a bad or expired token with a 401 before GraphQL runs, and serves anonymous callers', async () => {
    const response = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-jwt' },
      body: JSON.stringify({ query: '{ config { name } }' }),
    });
    expect(response.status).to.equal(401);
    expect(await response.json()).to.deep.equal({ message: 'invalid_token', details: ':invalid_token' });

    const { accessToken, user } = await signedUp(server, 'expiring@example.org');
    const [header, payload, signature] = accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: 1 })).toString('base64url')}.${signature}`;
    const tampered = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${forged}` },
      body: JSON.stringify({ query: LOGGED_USER }),
    });
    expect(tampered.status).to.equal(401);

    // Signed with the server's own secret, but issued an hour ago: expired 45 minutes ago.
    const secret = readFileSync(jwtSecretFile(server.ctx.config.dataDir), 'utf8');
    const past = new JwtSessions({
      sequelize: server.ctx.sequelize,
      secret,
      issuer: 'mobilizon',
      now: () => new Date(Date.now() - 3_600_000),
    });
    const expired = await past.issuePair(user);
    const late = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${expired.accessToken}` },
      body: JSON.stringify({ query: LOGGED_USER }),
    });
    expect(late.status).to.equal(401);
    expect(await late.json()).to.deep.equal({ message: 'invalid_token', details: ':token_expired' });

    // Another scheme is not a token of ours: the caller is simply anonymous.
    const basic = await gql(server, '{ config { name } }', {
      headers: { authorization: 'Basic dXNlcjpwdw==' },
    });
    expect(basic.status).to.equal(200);

    const anonymous = await gql(server, LOGGED_USER);
    expect(firstError(anonymous)).to.deep.equal({
      message: 'You need to be logged in',
      code: 'unauthenticated',
      status_code: 401,
    });
  });

  it('never serves one caller the answer of another, even next to a cached config', async () => {
    const a = await signedUp(server, 'carol@example.org');
    const b = await signedUp(server, 'dave@example.org');
    const query = '{ config { name } loggedUser { email } }';
    for (let round = 0; round < 2; round += 1) {
      expect(ok(await gql(server, query, { token: a.accessToken }), 'loggedUser').email).to.equal(
        'carol@example.org',
      );
      expect(ok(await gql(server, query, { token: b.accessToken }), 'loggedUser').email).to.equal(
        'dave@example.org',
      );
    }
  });

  it('resets a forgotten password through the mailed link', async () => {
    const email = 'erin@example.org';
    await signedUp(server, email);
    const sent = await gql(server, `mutation($email: String!) { sendResetPassword(email: $email) }`, {
      variables: { email },
    });
    expect(ok<string>(sent, 'sendResetPassword')).to.equal(email);
    const token = await linkToken(server, email, 'password-reset');
    const reset = await gql(
      server,
      `mutation($token: String!) { resetPassword(token: $token, password: "brand new pw") { accessToken user { email } } }`,
      { variables: { token } },
    );
    expect(ok<Session>(reset, 'resetPassword').user.email).to.equal(email);
    expect(
      firstError(await gql(server, LOGIN, { variables: { email, password: 'correct horse' } })).code,
    ).to.equal('unknown_error');
    expect(
      (await gql(server, LOGIN, { variables: { email, password: 'brand new pw' } })).body.errors,
    ).to.equal(undefined);
  });

  it('changes the email after confirmation from the new address, and the password', async () => {
    const { accessToken } = await signedUp(server, 'frank@example.org');
    const change = `mutation($email: String!, $password: String!) { changeEmail(email: $email, password: $password) { email } }`;
    expect(
      firstError(
        await gql(server, change, {
          token: accessToken,
          variables: { email: 'frank2@example.org', password: 'nope nope' },
        }),
      ).message,
    ).to.equal('The password provided is invalid');
    expect(
      firstError(
        await gql(server, change, {
          token: accessToken,
          variables: { email: 'frank@example.org', password: 'correct horse' },
        }),
      ).message,
    ).to.equal('The new email must be different');
    const asked = await gql(server, change, {
      token: accessToken,
      variables: { email: 'frank2@example.org', password: 'correct horse' },
    });
    expect(asked.body.errors).to.equal(undefined);
    const token = await linkToken(server, 'frank2@example.org', 'validate/email');
    const validated = await gql(
      server,
      `mutation($token: String!) { validateEmail(token: $token) { email } }`,
      {
        variables: { token },
      },
    );
    expect(ok(validated, 'validateEmail').email).to.equal('frank2@example.org');

    const changePassword = `mutation($old: String!, $new: String!) { changePassword(oldPassword: $old, newPassword: $new) { id } }`;
    expect(
      firstError(
        await gql(server, changePassword, {
          token: accessToken,
          variables: { old: 'bad guess', new: 'newer pw' },
        }),
      ).message,
    ).to.equal('The current password is invalid');
    expect(
      (
        await gql(server, changePassword, {
          token: accessToken,
          variables: { old: 'correct horse', new: 'newer pw' },
        })
      ).body.errors,
    ).to.equal(undefined);
    expect(
      (await gql(server, LOGIN, { variables: { email: 'frank2@example.org', password: 'newer pw' } })).body
        .errors,
    ).to.equal(undefined);
  });

  // Issue 12 §4: a refresh token issued before a password change or reset used to keep working.
  it('ends every other session on a password change, and every session on a reset', async () => {
    const email = 'gwen@example.org';
    const caller = await signedUp(server, email);
    const elsewhere = ok<Session>(
      await gql(server, LOGIN, { variables: { email, password: 'correct horse' } }),
      'login',
    );
    const changePassword = `mutation($old: String!, $new: String!) { changePassword(oldPassword: $old, newPassword: $new) { id } }`;
    ok(
      await gql(server, changePassword, {
        token: caller.accessToken,
        variables: { old: 'correct horse', new: 'stronger horse' },
      }),
      'changePassword',
    );
    const refresh = (refreshToken: string) => gql(server, REFRESH, { variables: { refreshToken } });
    expect(firstError(await refresh(elsewhere.refreshToken))).to.deep.equal({
      message: 'Cannot refresh the token',
      code: 'unknown_error',
      status_code: 500,
    });
    // The caller's own session goes on.
    const renewed = ok<Session>(await refresh(caller.refreshToken), 'refreshToken');

    const sent = await gql(server, `mutation($email: String!) { sendResetPassword(email: $email) }`, {
      variables: { email },
    });
    expect(ok<string>(sent, 'sendResetPassword')).to.equal(email);
    const token = await linkToken(server, email, 'password-reset');
    const reset = await gql(
      server,
      `mutation($token: String!) { resetPassword(token: $token, password: "reset horse") { refreshToken } }`,
      { variables: { token } },
    );
    const afterReset = ok<Session>(reset, 'resetPassword');
    expect(firstError(await refresh(renewed.refreshToken)).message).to.equal('Cannot refresh the token');
    ok(await refresh(afterReset.refreshToken), 'refreshToken');
  });

  it('guards user, users and adminUpdateUser by role', async () => {
    const user = await signedUp(server, 'grace@example.org');
    const moderator = await signedUp(server, 'heidi@example.org');
    const admin = await signedUp(server, 'ivan@example.org');
    await promote(server, moderator.user.id, 'MODERATOR');
    await promote(server, admin.user.id, 'ADMINISTRATOR');
    const one = `query($id: ID!) { user(id: $id) { email } }`;
    const many = `{ users(email: "grace") { total elements { email } } }`;
    const update = `mutation($id: ID!) { adminUpdateUser(id: $id, role: MODERATOR) { role } }`;
    const variables = { id: user.user.id };

    for (const query of [one, many, update]) {
      expect(firstError(await gql(server, query, { variables })).status_code).to.equal(401);
      expect(firstError(await gql(server, query, { variables, token: user.accessToken }))).to.deep.equal({
        message: "You don't have permission to do this",
        code: 'unauthorized',
        status_code: 403,
      });
    }
    expect(ok(await gql(server, one, { variables, token: moderator.accessToken }), 'user').email).to.equal(
      'grace@example.org',
    );
    expect(ok(await gql(server, many, { token: moderator.accessToken }), 'users')).to.deep.equal({
      total: 1,
      elements: [{ email: 'grace@example.org' }],
    });
    expect(
      firstError(await gql(server, update, { variables, token: moderator.accessToken })).status_code,
    ).to.equal(403);
    const updated = await gql(server, update, { variables, token: admin.accessToken });
    expect(ok(updated, 'adminUpdateUser').role).to.equal('MODERATOR');
    expect(firstError(await gql(server, update, { variables, token: admin.accessToken })).message).to.equal(
      'The new role must be different',
    );
    const confirm = `mutation($id: ID!, $confirmed: Boolean) { adminUpdateUser(id: $id, confirmed: $confirmed) { id } }`;
    expect(
      firstError(
        await gql(server, confirm, {
          variables: { ...variables, confirmed: true },
          token: admin.accessToken,
        }),
      ).message,
    ).to.equal("Can't confirm an already confirmed user");
    expect(
      firstError(
        await gql(server, confirm, {
          variables: { ...variables, confirmed: false },
          token: admin.accessToken,
        }),
      ).message,
    ).to.equal('Deconfirming users is not supported');
  });

  it('shows the sign-in history to its owner and to moderators, never the tokens', async () => {
    const user = await signedUp(server, 'olivia@example.org');
    const moderator = await signedUp(server, 'peggy@example.org');
    await promote(server, moderator.user.id, 'MODERATOR');
    const fields = `lastSignInAt lastSignInIp currentSignInAt currentSignInIp confirmationSentAt
      resetPasswordSentAt confirmationToken resetPasswordToken email role`;
    // The history is not part of the session projection the guards load: it is read when asked for.
    const own = ok<Record<string, unknown>>(
      await gql(server, `{ loggedUser { ${fields} } }`, { token: user.accessToken }),
      'loggedUser',
    );
    const stored = (await server.ctx.accounts.findById(user.user.id))!;
    const dateTime = (date: Date | null) => date && date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(own).to.deep.equal({
      lastSignInAt: dateTime(stored.lastSignInAt),
      lastSignInIp: stored.lastSignInIp,
      currentSignInAt: dateTime(stored.currentSignInAt),
      currentSignInIp: stored.currentSignInIp,
      confirmationSentAt: dateTime(stored.confirmationSentAt),
      resetPasswordSentAt: null,
      confirmationToken: null,
      resetPasswordToken: null,
      email: 'olivia@example.org',
      role: 'USER',
    });
    expect(own.currentSignInAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(own.currentSignInIp).to.be.a('string');

    const listed = ok<{ elements: Array<Record<string, unknown>> }>(
      await gql(server, `{ users(email: "olivia") { elements { ${fields} } } }`, {
        token: moderator.accessToken,
      }),
      'users',
    );
    expect(listed.elements).to.deep.equal([own]);
  });

  it('keeps settings, with a checked time zone, and the locale', async () => {
    const { accessToken } = await signedUp(server, 'kim@example.org');
    const set = `mutation($timezone: String, $onDay: Boolean) {
      setUserSettings(timezone: $timezone, notificationOnDay: $onDay, groupNotifications: ONE_HOUR) {
        timezone notificationOnDay notificationEachWeek groupNotifications } }`;
    expect(
      ok(
        await gql(server, set, { token: accessToken, variables: { timezone: 'Europe/Paris', onDay: false } }),
        'setUserSettings',
      ),
    ).to.deep.equal({
      timezone: 'Europe/Paris',
      notificationOnDay: false,
      notificationEachWeek: false,
      groupNotifications: 'ONE_HOUR',
    });
    const bad = await gql(server, set, { token: accessToken, variables: { timezone: 'Mars/Olympus' } });
    expect(bad.body.errors![0]).to.include({ code: 'validation', status_code: 422, field: 'timezone' });
    expect(
      ok(await gql(server, set, { token: accessToken, variables: { timezone: '' } }), 'setUserSettings')
        .timezone,
    ).to.equal(null);
    expect(firstError(await gql(server, set, { variables: { timezone: 'UTC' } })).status_code).to.equal(401);

    const locale = await gql(server, `mutation { updateLocale(locale: "de") { locale } }`, {
      token: accessToken,
    });
    expect(ok(locale, 'updateLocale').locale).to.equal('de');
    const mine = await gql(
      server,
      '{ loggedUser { locale settings { notificationOnDay groupNotifications } } }',
      {
        token: accessToken,
      },
    );
    expect(ok(mine, 'loggedUser')).to.deep.equal({
      locale: 'de',
      settings: { notificationOnDay: false, groupNotifications: 'ONE_HOUR' },
    });
  });

  it('deletes an account only with its password, and its sessions with it', async () => {
    const email = 'liam@example.org';
    const { accessToken, refreshToken } = await signedUp(server, email);
    const remove = `mutation($password: String) { deleteAccount(password: $password) { id } }`;
    expect(
      firstError(await gql(server, remove, { token: accessToken, variables: { password: 'wrong one' } }))
        .message,
    ).to.equal('The password provided is invalid');
    expect(ok(await gql(server, LOGGED_USER, { token: accessToken }), 'loggedUser').email).to.equal(email);
    ok(
      await gql(server, remove, { token: accessToken, variables: { password: 'correct horse' } }),
      'deleteAccount',
    );
    expect(firstError(await gql(server, LOGGED_USER, { token: accessToken })).status_code).to.equal(401);
    expect(firstError(await gql(server, REFRESH, { variables: { refreshToken } })).message).to.equal(
      'Cannot refresh the token',
    );
    expect(
      firstError(await gql(server, LOGIN, { variables: { email, password: 'correct horse' } })).code,
    ).to.equal('user_not_found');
  });

  it('keeps the generated signing secret private and shared by every process of the instance', async () => {
    const file = jwtSecretFile(server.ctx.config.dataDir);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const { accessToken } = await signedUp(server, 'mia@example.org');
    // A second process on the same data folder, as after a restart, accepts the first one's tokens.
    const sibling = await server.sibling();
    const me = await graphql(sibling.url, LOGGED_USER, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(ok(me, 'loggedUser').email).to.equal('mia@example.org');
  });

  it('keeps passwords and tokens out of the logs', () => {
    const all = lines.join('');
    expect(lines.length, 'the server logged something').to.be.greaterThan(0);
    expect(all).to.not.include('correct horse');
    expect(all).to.not.include('brand new pw');
    expect(all).to.not.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  });
});

describe('users configuration', () => {
  it('requires a JWT secret of at least 32 bytes in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(
      ConfigError,
      /JWT_SECRET: is required in production/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'short' })).to.throw(ConfigError, /JWT_SECRET/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).auth.jwtSecret).to.have.length(
      32,
    );
  });
});

describe('registration policy over GraphQL', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('users-registration', {
      REGISTRATIONS_OPEN: 'false',
      REGISTRATION_EMAIL_ALLOWLIST: 'friends.example',
      REGISTRATION_EMAIL_DENYLIST: 'troll@friends.example',
      TRUST_PROXY: 'true',
    });
  });
  after(() => server?.stop());

  const create = (email: string) => gql(server, CREATE, { variables: { email, password: 'long enough' } });

  it('lets only allowlisted, non-denied emails register when closed', async () => {
    expect(firstError(await create('x@elsewhere.example')).message).to.equal(
      'Your email is not on the allowlist',
    );
    expect(firstError(await create('troll+1@friends.example')).message).to.equal(
      'Your e-mail has been denied registration or uses a disallowed e-mail provider',
    );
    expect((await create('pal@friends.example')).body.errors).to.equal(undefined);
    const users = await server.ctx.sequelize.query('SELECT email FROM users', { plain: false, raw: true });
    expect(users[0]).to.deep.equal([{ email: 'pal@friends.example' }]);
  });

  it('refuses everyone but the allowlist when closed', async () => {
    const closed = await startTestServer('users-closed', {
      REGISTRATIONS_OPEN: 'false',
      TRUST_PROXY: 'true',
    });
    try {
      const response = await gql(closed, CREATE, {
        variables: { email: 'a@example.org', password: 'long enough' },
      });
      expect(firstError(response)).to.deep.equal({
        message: 'Registrations are not open',
        code: 'unknown_error',
        status_code: 500,
      });
    } finally {
      await closed.stop();
    }
  });
});

describe('rate limits', () => {
  let limited: TestServer;
  // Mid-window: the six requests cannot straddle two of the reference's one-minute windows.
  const clock = () => new Date('2030-01-01T00:00:30Z');
  before(async () => {
    limited = await startTestServer(
      'users-limits',
      { REGISTRATIONS_OPEN: 'true', TRUST_PROXY: 'true' },
      { clock },
    );
  });
  after(() => limited?.stop());

  it('refuses the 6th reset request for one email within the window', async () => {
    const email = 'judy@example.org';
    await signedUp(limited, email);
    const send = `mutation($email: String!) { sendResetPassword(email: $email) }`;
    const answers: Array<string | undefined> = [];
    // Each from its own address, so only the per-email limit (5 a minute) can refuse.
    for (let i = 0; i < 6; i += 1) {
      const response = await gql(limited, send, { variables: { email } });
      answers.push(response.body.errors ? String(response.body.errors[0]!.message) : 'ok');
    }
    expect(answers.slice(-1)).to.deep.equal(['Too many requests']);
  });
});

describe('rate limits with RATE_LIMIT_SAFELIST', () => {
  let relaxed: TestServer;
  const clock = () => new Date('2030-01-01T00:00:30Z');
  before(async () => {
    relaxed = await startTestServer(
      'users-safelist',
      { REGISTRATIONS_OPEN: 'true', TRUST_PROXY: 'true', RATE_LIMIT_SAFELIST: '203.0.113.0/24' },
      { clock },
    );
  });
  after(() => relaxed?.stop());

  it('never limits a safelisted address, and still limits the others', async () => {
    const email = 'mallory@example.org';
    await signedUp(relaxed, email);
    const attempts = async (ip: () => string) => {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i += 1) {
        const response = await gql(relaxed, LOGIN, {
          variables: { email, password: 'wrong guess' },
          ip: ip(),
        });
        seen.add(String(response.body.errors?.[0]?.message));
      }
      return seen;
    };
    let host = 0;
    const safelisted = await attempts(() => `203.0.113.${++host}`);
    expect([...safelisted])
      .to.have.lengthOf(1)
      .and.not.include('Too many requests');
    // The safelisted attempts were not counted; the per-email limit still holds for everyone else.
    expect([...(await attempts(freshIp))]).to.include('Too many requests');
  });
});
