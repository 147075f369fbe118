import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
  type ECDH,
} from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { createRestAPIClient } from 'masto';
import { Mastodon } from 'megalodon';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { WEB_PUSH_DELIVERY_JOB, WEB_PUSH_JOB } from './push.service.js';

// Web Push (issue 16 §4; not-shown.md §2.2 `/api/v1/push/subscription`, §2.3 WebPushSubscription):
// a local push endpoint receives what the server sends and decrypts it by hand (RFC 8291 over
// RFC 8188 aes128gcm, node:crypto ECDH + HKDF + AES-GCM), as a browser would with its private key.

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function pushEndpoint(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks) });
      // `/gone/*` is an endpoint the browser dropped.
      response.writeHead(request.url?.startsWith('/gone') ? 410 : 201);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, received };
}

/** A browser's push subscription: its P-256 key pair and auth secret. */
function browserKeys(): { ecdh: ECDH; auth: Buffer; p256dh: string; authText: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    authText: auth.toString('base64url'),
  };
}

/** RFC 8291 §3.4 + RFC 8188 §2: what the user agent does with an aes128gcm message. */
function decrypt(body: Buffer, keys: { ecdh: ECDH; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = keys.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, keys.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  let end = padded.length - 1;
  while (end > 0 && padded[end] === 0) end -= 1;
  expect(padded[end], 'the last record ends with the 0x02 delimiter').to.equal(2);
  return padded.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<key>`; the JWT must verify with the instance's published key. */
function checkVapid(header: string | undefined, publicKey: string, endpoint: string): void {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  expect(match, header).to.not.equal(null);
  const [, jwt, key] = match!;
  expect(key).to.equal(publicKey);
  const [head, claims, signature] = jwt!.split('.') as [string, string, string];
  const point = Buffer.from(publicKey, 'base64url');
  const verifier = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const valid = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key: verifier, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(valid, 'the VAPID JWT is signed with the instance key').to.equal(true);
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Json;
  expect(payload.aud).to.equal(new URL(endpoint).origin);
  expect(payload.sub).to.match(/^(mailto|https):/);
}

describe('Web Push: subscriptions and encrypted notifications (issue 16 §4)', function () {
  this.timeout(90_000);
  let t: TestServer;
  let endpoint: Awaited<ReturnType<typeof pushEndpoint>>;
  let unlisted: Awaited<ReturnType<typeof pushEndpoint>>;
  let app: TestApp;
  let alice: SeededAccount & { token: string };
  let bob: SeededAccount & { token: string };
  let carol: SeededAccount & { token: string };
  let serverKey: string;
  const keys = browserKeys();

  before(async () => {
    endpoint = await pushEndpoint();
    unlisted = await pushEndpoint();
    t = await startTestServer('push', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${endpoint.port}` },
    });
    app = await registerApp(t.url, 'Push test', 'read write follow push');
    const scope = 'read write follow push';
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice', { scope }),
      signedInAccount(t, app, 'bob', { scope }),
      signedInAccount(t, app, 'carol', { scope }),
    ]);
    const instance = await rest(t.url, '/api/v2/instance');
    serverKey = ((instance.body.configuration as Json).vapid as Json).public_key as string;
  });
  after(async () => {
    await t?.stop();
    endpoint?.server.close();
    unlisted?.server.close();
  });

  const settle = () => t.ctx.queue.drain([FAN_OUT_JOB, WEB_PUSH_JOB, WEB_PUSH_DELIVERY_JOB], 30_000);
  const post = async (who: { token: string }, status: string, visibility = 'public') => {
    const answer = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: who.token,
      json: { status, visibility },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.id as string;
  };
  const subscribe = (token: string, json: Json) =>
    rest(t.url, '/api/v1/push/subscription', { method: 'POST', token, json });
  const at = (path: string) => `http://127.0.0.1:${endpoint.port}${path}`;

  it('publishes one VAPID key: v2 instance, the application entity, the subscription', async () => {
    expect(serverKey).to.match(/^[A-Za-z0-9_-]{87}$/);
    expect(Buffer.from(serverKey, 'base64url')[0]).to.equal(4);
    const verified = await rest(t.url, '/api/v1/apps/verify_credentials', { token: alice.token });
    expect(verified.body.vapid_key).to.equal(serverKey);
  });

  it('POST, GET, PUT and DELETE the token’s subscription through masto.js (alerts, policy, server_key)', async () => {
    const masto = createRestAPIClient({ url: t.url, accessToken: carol.token });
    const created = await masto.v1.push.subscription.create({
      subscription: { endpoint: at('/carol'), keys: { p256dh: keys.p256dh, auth: keys.authText } },
      data: { alerts: { mention: true, follow: true } },
      policy: 'follower',
    });
    expect(created).to.include({ endpoint: at('/carol'), policy: 'follower', serverKey, standard: false });
    expect(created.alerts).to.include({ mention: true, follow: true, favourite: false, reblog: false });
    expect((await masto.v1.push.subscription.fetch()).id).to.equal(created.id);
    const updated = await masto.v1.push.subscription.update({ data: { alerts: { favourite: true } } });
    expect(updated.alerts).to.include({ favourite: true, mention: false });
    expect(updated.policy).to.equal('all');
    await masto.v1.push.subscription.remove();
    const gone = await rest(t.url, '/api/v1/push/subscription', { token: carol.token });
    expect(gone.status).to.equal(404);
    expect(gone.body).to.deep.equal({ error: 'Record not found' });
  });

  it('megalodon subscribes, reads, updates and deletes the same way', async () => {
    const client = new Mastodon(t.url, carol.token);
    const created = await client.subscribePushNotification(
      { endpoint: at('/carol-megalodon'), keys: { p256dh: keys.p256dh, auth: keys.authText } },
      { alerts: { follow: true, mention: true } },
    );
    expect(created.data).to.include({ endpoint: at('/carol-megalodon'), server_key: serverKey });
    expect(created.data.alerts).to.include({ follow: true, mention: true, favourite: false });
    expect((await client.getPushSubscription()).data.id).to.equal(created.data.id);
    const updated = await client.updatePushSubscription({ alerts: { poll: true } });
    expect(updated.data.alerts).to.include({ poll: true, follow: false });
    await client.deletePushSubscription();
    expect((await rest(t.url, '/api/v1/push/subscription', { token: carol.token })).status).to.equal(404);
  });

  it('refuses bad subscriptions with 422, tokens without `push` with 403, and no token with 401', async () => {
    const bad = [
      {},
      { subscription: { endpoint: 'not a url', keys: { p256dh: keys.p256dh, auth: keys.authText } } },
      { subscription: { endpoint: at('/x'), keys: { p256dh: 'c2hvcnQ', auth: keys.authText } } },
      {
        subscription: { endpoint: at('/x'), keys: { p256dh: keys.p256dh, auth: keys.authText } },
        data: { policy: 'some' },
      },
    ];
    for (const json of bad) {
      const answer = await subscribe(alice.token, json);
      expect(answer.status, JSON.stringify(json)).to.equal(422);
      expect(answer.body.error).to.be.a('string');
    }
    const readOnly = await signedInAccount(t, app, 'dave', { scope: 'read' });
    const json = { subscription: { endpoint: at('/x'), keys: { p256dh: keys.p256dh, auth: keys.authText } } };
    expect((await subscribe(readOnly.token, json)).status).to.equal(403);
    expect((await rest(t.url, '/api/v1/push/subscription', { method: 'POST', json })).status).to.equal(401);
    expect((await rest(t.url, '/api/v1/push/subscription', { token: alice.token })).status).to.equal(404);
  });

  it('a mention reaches the endpoint as an RFC 8291 message that decrypts to Mastodon’s payload; alerts not asked for send nothing', async () => {
    // A form body with bracketed keys, as Mastodon's web client and many apps send it.
    const form = new URLSearchParams({
      'subscription[endpoint]': at('/alice'),
      'subscription[keys][p256dh]': keys.p256dh,
      'subscription[keys][auth]': keys.authText,
      'subscription[standard]': 'true',
      'data[alerts][mention]': 'true',
      'data[alerts][favourite]': 'false',
      'data[policy]': 'all',
    });
    const created = await rest(t.url, '/api/v1/push/subscription', {
      method: 'POST',
      token: alice.token,
      body: form,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body).to.include({ standard: true, policy: 'all', server_key: serverKey });

    endpoint.received.length = 0;
    const id = await post(bob, '@alice did you see <this> & that?');
    await settle();
    expect(endpoint.received.map((r) => r.path)).to.deep.equal(['/alice']);
    const [message] = endpoint.received as [Received];
    expect(message.headers['content-encoding']).to.equal('aes128gcm');
    expect(Number(message.headers.ttl)).to.be.greaterThan(0);
    checkVapid(message.headers.authorization, serverKey, at('/alice'));
    expect(message.body.toString('utf8')).to.not.include('did you see');
    const payload = JSON.parse(decrypt(message.body, keys)) as Json;
    const notifications = await rest<Json[]>(t.url, '/api/v1/notifications', { token: alice.token });
    const notification = notifications.body.find((n) => (n.status as Json | null)?.id === id)!;
    expect(payload).to.deep.equal({
      access_token: alice.token,
      preferred_locale: 'en',
      notification_id: notification.id,
      notification_type: 'mention',
      icon: (notification.account as Json).avatar_static,
      title: 'You were mentioned by bob',
      body: '@alice did you see <this> & that?',
    });

    // A favourite is not among the alerts asked for.
    endpoint.received.length = 0;
    const own = await post(alice, 'something to like');
    await rest(t.url, `/api/v1/statuses/${own}/favourite`, { method: 'POST', token: bob.token });
    await settle();
    expect(endpoint.received).to.deep.equal([]);
  });

  it('policies: `followed` lets only followed accounts through, `none` nothing', async () => {
    await rest(t.url, '/api/v1/push/subscription', {
      method: 'PUT',
      token: alice.token,
      json: { data: { alerts: { mention: true }, policy: 'followed' } },
    });
    endpoint.received.length = 0;
    await post(carol, '@alice hello from a stranger');
    await settle();
    expect(endpoint.received, 'alice does not follow carol').to.deep.equal([]);
    const followed = await rest(t.url, `/api/v1/accounts/${carol.id}/follow`, {
      method: 'POST',
      token: alice.token,
    });
    expect(followed.status).to.equal(200);
    await post(carol, '@alice hello again');
    await settle();
    expect(endpoint.received.length).to.equal(1);
    expect(JSON.parse(decrypt(endpoint.received[0]!.body, keys))).to.include({ body: '@alice hello again' });

    await rest(t.url, '/api/v1/push/subscription', {
      method: 'PUT',
      token: alice.token,
      json: { data: { alerts: { mention: true }, policy: 'none' } },
    });
    endpoint.received.length = 0;
    await post(carol, '@alice and once more');
    await settle();
    expect(endpoint.received).to.deep.equal([]);
  });

  it('a legacy (non-standard) subscription gets the aesgcm draft encoding Mastodon keeps for it', async () => {
    await subscribe(bob.token, {
      subscription: { endpoint: at('/bob'), keys: { p256dh: keys.p256dh, auth: keys.authText } },
      data: { alerts: { follow: true } },
    });
    endpoint.received.length = 0;
    await rest(t.url, `/api/v1/accounts/${bob.id}/follow`, { method: 'POST', token: carol.token });
    await settle();
    expect(endpoint.received.map((r) => r.path)).to.deep.equal(['/bob']);
    expect(endpoint.received[0]!.headers['content-encoding']).to.equal('aesgcm');
    expect(endpoint.received[0]!.headers['crypto-key']).to.match(/dh=/);
  });

  it('an endpoint that answers 410 loses its subscription; a private address is never contacted', async () => {
    const other = await signedInAccount(t, app, 'erin', { scope: 'read write push' });
    await subscribe(other.token, {
      subscription: {
        endpoint: at('/gone/erin'),
        keys: { p256dh: keys.p256dh, auth: keys.authText },
        standard: true,
      },
      data: { alerts: { mention: true } },
    });
    const frank = await signedInAccount(t, app, 'frank', { scope: 'read write push' });
    await subscribe(frank.token, {
      subscription: {
        endpoint: `http://127.0.0.1:${unlisted.port}/frank`,
        keys: { p256dh: keys.p256dh, auth: keys.authText },
        standard: true,
      },
      data: { alerts: { mention: true } },
    });
    await post(bob, '@erin @frank are you there?');
    await settle();
    expect(endpoint.received.some((r) => r.path === '/gone/erin')).to.equal(true);
    expect((await rest(t.url, '/api/v1/push/subscription', { token: other.token })).status).to.equal(404);
    expect(unlisted.received, 'the guarded fetch refused the private address').to.deep.equal([]);
    expect((await rest(t.url, '/api/v1/push/subscription', { token: frank.token })).status).to.equal(200);
  });

  it('a revoked token’s subscription sends nothing and goes', async () => {
    const gina = await signedInAccount(t, app, 'gina', { scope: 'read write push' });
    const created = await subscribe(gina.token, {
      subscription: {
        endpoint: at('/gina'),
        keys: { p256dh: keys.p256dh, auth: keys.authText },
        standard: true,
      },
      data: { alerts: { mention: true } },
    });
    expect(created.status).to.equal(200);
    const revoked = await rest(t.url, '/oauth/revoke', {
      method: 'POST',
      json: { client_id: app.clientId, client_secret: app.clientSecret, token: gina.token },
    });
    expect(revoked.status).to.equal(200);
    endpoint.received.length = 0;
    await post(bob, '@gina still there?');
    await settle();
    expect(endpoint.received).to.deep.equal([]);
    const [left] = await t.ctx.sequelize.query<{ count: string }>(
      'SELECT count(*)::text AS count FROM web_push_subscriptions WHERE id = $1',
      { bind: [created.body.id], type: QueryTypes.SELECT },
    );
    expect(left!.count).to.equal('0');
  });
});
