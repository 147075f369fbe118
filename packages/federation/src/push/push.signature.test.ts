import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signPushBody, verifyPushSignature } from './push.signature.js';

describe('X-Hub-Signature', () => {
  const body = Buffer.from('<feed>é</feed>', 'utf8');

  it('signs with HMAC-SHA1 over the exact body bytes', () => {
    const expected = createHmac('sha1', 'k').update(body).digest('hex');
    expect(signPushBody('k', body)).to.equal(`sha1=${expected}`);
    expect(verifyPushSignature('k', body, signPushBody('k', body))).to.equal(true);
  });

  it('accepts the other PuSH 0.4 algorithms and refuses unknown ones, wrong keys and altered bodies', () => {
    const sha512 = createHmac('sha512', 'k').update(body).digest('hex');
    expect(verifyPushSignature('k', body, `sha512=${sha512}`)).to.equal(true);
    const md5 = createHmac('md5', 'k').update(body).digest('hex');
    expect(verifyPushSignature('k', body, `md5=${md5}`)).to.equal(false);
    expect(verifyPushSignature('other', body, signPushBody('k', body))).to.equal(false);
    expect(verifyPushSignature('k', Buffer.from('<feed>e</feed>'), signPushBody('k', body))).to.equal(false);
    expect(verifyPushSignature('k', body, 'sha1=')).to.equal(false);
    expect(verifyPushSignature('k', body, undefined)).to.equal(false);
  });
});
