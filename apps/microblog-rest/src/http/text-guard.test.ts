import { expect } from 'chai';
import { registerApp, signedInAccount, type TestApp } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';
import { unstorableParam } from './text-guard.js';

type Json = Record<string, unknown>;

/**
 * Issue 12 §2: text PostgreSQL cannot store (U+0000 anywhere, an unpaired surrogate in `json`) used to
 * reach the query and answer 500. Every way a parameter arrives (path, query string, JSON, form,
 * both multipart parsers) now ends in one 422 `{"error"}` before anything is written.
 */
describe('text PostgreSQL cannot store (issue 12 §2)', () => {
  let t: TestServer;
  let app: TestApp;
  let token: string;

  before(async () => {
    t = await startTestServer('text-guard');
    app = await registerApp(t.url, 'Text guard test');
    ({ token } = await signedInAccount(t, app, 'nul'));
  });
  after(() => t?.stop());

  async function send(
    method: string,
    path: string,
    body?: string | FormData | URLSearchParams,
    type?: string,
  ): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(type ? { 'Content-Type': type } : {}) },
      body,
    });
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function expectRefused(answer: Promise<{ status: number; body: Json }>, name: string): Promise<void> {
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).to.equal(422);
    expect(body.error).to.equal(
      `Validation failed: ${name} contains a NUL character or an unpaired surrogate, which cannot be stored`,
    );
    expect(body.details).to.have.property(name);
  }

  const credentials = () => send('GET', '/api/v1/accounts/verify_credentials?fresh=1');

  it('refuses update_credentials with a NUL or a lone surrogate in a profile field, and keeps the profile', async () => {
    const before = await send(
      'PATCH',
      '/api/v1/accounts/update_credentials',
      JSON.stringify({ display_name: 'Before', fields_attributes: [{ name: 'site', value: 'ok' }] }),
      'application/json',
    );
    expect(before.status).to.equal(200);

    // The exact requests of the issue: `\u0000` and `\ud800` escapes in a field's name (and value).
    for (const raw of [
      '{"display_name":"After","fields_attributes":[{"name":"a\\u0000b","value":"x"}]}',
      '{"display_name":"After","fields_attributes":[{"name":"\\ud800","value":"x"}]}',
      '{"display_name":"After","fields_attributes":{"0":{"name":"ok","value":"tail \\udc00"}}}',
    ]) {
      const name = raw.includes('"0"') ? 'fields_attributes[0][value]' : 'fields_attributes[0][name]';
      await expectRefused(
        send('PATCH', '/api/v1/accounts/update_credentials', raw, 'application/json'),
        name,
      );
    }
    // Rails-style form and multipart (the avatar/header parser) alike.
    await expectRefused(
      send(
        'PATCH',
        '/api/v1/accounts/update_credentials',
        new URLSearchParams({ display_name: 'After', 'fields_attributes[0][name]': 'a\0b' }),
      ),
      'fields_attributes[0][name]',
    );
    const form = new FormData();
    form.append('display_name', 'After');
    form.append('note', 'a\0b');
    await expectRefused(send('PATCH', '/api/v1/accounts/update_credentials', form), 'note');

    // Nothing of the refused requests was written.
    const now = await credentials();
    expect(now.body.display_name).to.equal('Before');
    expect(now.body.fields).to.deep.equal([{ name: 'site', value: 'ok', verified_at: null }]);
  });

  it('still stores text with paired surrogates (emoji) and other control characters', async () => {
    const patched = await send(
      'PATCH',
      '/api/v1/accounts/update_credentials',
      JSON.stringify({
        display_name: 'Party 🎉',
        fields_attributes: [{ name: '\ud83c\udf89', value: 'tab\there' }],
      }),
      'application/json',
    );
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.display_name).to.equal('Party 🎉');
    expect(patched.body.fields).to.deep.equal([{ name: '🎉', value: 'tab\there', verified_at: null }]);
  });

  it('refuses such text in a key, the query string, the path and the text-only multipart forms', async () => {
    await expectRefused(
      send('PATCH', '/api/v1/accounts/update_credentials', '{"source":{"\\u0000":"x"}}', 'application/json'),
      'source[\ufffd]',
    );
    await expectRefused(send('GET', '/api/v1/accounts/lookup?acct=a%00b'), 'acct');
    await expectRefused(send('GET', '/api/v1/accounts/lookup?acct[x]=%00'), 'acct[x]');
    await expectRefused(send('GET', '/api/v1/accounts/%00'), 'path');
    await expectRefused(send('GET', '/.well-known/webfinger?resource=acct:%00@127.0.0.1'), 'resource');
    // POST /api/v1/apps takes multipart text fields through a parser of its own.
    const form = new FormData();
    form.append('client_name', 'x\0y');
    form.append('redirect_uris', 'urn:ietf:wg:oauth:2.0:oob');
    await expectRefused(send('POST', '/api/v1/apps', form), 'client_name');
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    let nested: unknown = 'a\0';
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];
    expect(unstorableParam(nested)).to.match(/^0(\[0\])+$/);
    expect(unstorableParam({ a: ['fine', { b: 'also fine 🎉' }] })).to.equal(undefined);
  });
});
