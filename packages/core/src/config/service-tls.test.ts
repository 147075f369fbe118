import { expect } from 'chai';
import { z } from 'zod';
import { ConfigError, loadConfig } from './load.js';
import { baseServiceEnv, toBaseServiceConfig } from './service.js';

const schema = z.object(baseServiceEnv({ port: 3000 }));
const configOf = (env: Record<string, string>) =>
  toBaseServiceConfig(loadConfig(schema, env), 'microblog', 'agora_microblog');

// Issue 15 §8: a service served over HTTPS names itself with https.
describe('service configuration: HTTPS and TLS files', () => {
  it('is plain http by default', () => {
    const config = configOf({ DATA_DIR: '/tmp/agora' });
    expect(config.http).to.include({ publicUrl: 'http://localhost:3000', tls: null });
  });

  it('serves the given certificate and defaults the public URL to https', () => {
    const config = configOf({ TLS_CERT_FILE: '/tmp/c.pem', TLS_KEY_FILE: '/tmp/k.pem', PORT: '3100' });
    expect(config.http.tls).to.deep.equal({ certFile: '/tmp/c.pem', keyFile: '/tmp/k.pem' });
    expect(config.http).to.include({ publicUrl: 'https://localhost:3100', domain: 'localhost:3100' });
    // An explicit PUBLIC_URL still wins (a proxy, another name).
    expect(
      configOf({ TLS_CERT_FILE: 'c', TLS_KEY_FILE: 'k', PUBLIC_URL: 'https://agora.test' }).http.publicUrl,
    ).to.equal('https://agora.test');
  });

  it('HTTPS=1 alone makes the default public URL https (behind a proxy, or the admin tool)', () => {
    expect(configOf({ HTTPS: '1' }).http).to.include({ publicUrl: 'https://localhost:3000', tls: null });
  });

  it('refuses a certificate without its key, and the reverse', () => {
    expect(() => configOf({ TLS_CERT_FILE: '/tmp/c.pem' })).to.throw(
      ConfigError,
      /TLS_CERT_FILE and TLS_KEY_FILE/,
    );
    expect(() => configOf({ TLS_KEY_FILE: '/tmp/k.pem' })).to.throw(
      ConfigError,
      /TLS_CERT_FILE and TLS_KEY_FILE/,
    );
  });
});
