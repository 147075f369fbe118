import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { KeyCache } from './key-cache.js';

function publicPem(): string {
  return generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

describe('KeyCache', () => {
  it('parses a PEM once and answers later lookups from memory', () => {
    const cache = new KeyCache();
    const pem = publicPem();
    const first = cache.publicKey(pem);
    expect(cache.publicKey(pem)).to.equal(first);
    expect({ hits: cache.hits, misses: cache.misses }).to.deep.equal({ hits: 1, misses: 1 });
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new KeyCache(2);
    const [a, b, c] = [publicPem(), publicPem(), publicPem()];
    cache.publicKey(a);
    cache.publicKey(b);
    cache.publicKey(a); // a is now the most recently used
    cache.publicKey(c); // evicts b
    expect(cache.size).to.equal(2);
    cache.publicKey(a);
    expect(cache.misses).to.equal(3);
    cache.publicKey(b);
    expect(cache.misses).to.equal(4);
  });

  it('keeps private and public keys apart and does not cache a PEM that fails to parse', () => {
    const cache = new KeyCache();
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(cache.privateKey(pem).type).to.equal('private');
    expect(cache.publicKey(pem).type).to.equal('public');
    expect(() => cache.publicKey('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----')).to.throw();
    expect(cache.size).to.equal(2);
  });
});
