import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { checkContentDigestHeader, checkDigestHeader, computeDigest, contentDigest } from './digest.js';

const body = Buffer.from('{"hello": "world"}');
const sha512 = createHash('sha512').update(body).digest('base64');

describe('body digests', () => {
  it('matches the RFC 9530 example for {"hello": "world"}', () => {
    expect(contentDigest(body)).to.equal('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(computeDigest('{"hello": "world"}')).to.equal(
      'SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=',
    );
  });

  it('accepts SHA-256 and SHA-512 in any case, alone or together', () => {
    expect(checkDigestHeader(computeDigest(body), body)).to.equal('match');
    expect(checkDigestHeader(`sha-512=${sha512}`, body)).to.equal('match');
    expect(checkDigestHeader(`${computeDigest(body)},SHA-512=${sha512}`, body)).to.equal('match');
    expect(checkContentDigestHeader(`sha-512=:${sha512}:, ${contentDigest(body).slice(0)}`, body)).to.equal(
      'match',
    );
  });

  it('refuses a wrong value even when a right one sits next to it', () => {
    const decoy = `${computeDigest(body)},SHA-512=${createHash('sha512').update('other').digest('base64')}`;
    expect(checkDigestHeader(decoy, body)).to.equal('mismatch');
    expect(checkDigestHeader(computeDigest('other'), body)).to.equal('mismatch');
    expect(checkContentDigestHeader(contentDigest('other'), body)).to.equal('mismatch');
  });

  it('treats MD5-only digests as unsupported and garbage as malformed', () => {
    expect(checkDigestHeader('MD5=XrY7u+Ae7tCTyyK7j1rNww==', body)).to.equal('unsupported');
    expect(checkDigestHeader('SHA-256', body)).to.equal('malformed');
    expect(checkContentDigestHeader('sha-256="not bytes"', body)).to.equal('malformed');
    expect(checkContentDigestHeader('sha-256=:abc', body)).to.equal('malformed');
  });
});
