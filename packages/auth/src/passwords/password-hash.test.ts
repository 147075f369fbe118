import { expect } from 'chai';
import { hash as rawArgon2, argon2i } from 'argon2';
import { BadInput } from '@agora/core';
import {
  DEFAULT_PASSWORD_HASH_PARAMS,
  hashPassword,
  verifyAgainstNothing,
  verifyPassword,
  type PasswordHashParams,
} from './password-hash.js';
import { PASSWORD_MAX_LENGTH } from './password-policy.js';

// Cheap parameters keep the suite fast; one test below runs the real defaults.
const CHEAP: PasswordHashParams = { timeCost: 2, memoryCost: 1024, parallelism: 1 };
const WEAKER: PasswordHashParams = { timeCost: 1, memoryCost: 512, parallelism: 1 };

describe('password hashing', () => {
  it('accepts the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery', CHEAP);
    expect(stored).to.match(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$/);
    expect(stored).not.to.include('correct horse');
    expect(await verifyPassword(stored, 'correct horse battery', CHEAP)).to.deep.equal({
      ok: true,
      rehash: null,
    });
    expect(await verifyPassword(stored, 'correct horse batterY', CHEAP)).to.deep.equal({
      ok: false,
      rehash: null,
    });
    expect(await verifyPassword(stored, '', CHEAP)).to.deep.equal({ ok: false, rehash: null });
  });

  it('salts: the same password hashes differently each time', async () => {
    const [a, b] = await Promise.all([
      hashPassword('same password', CHEAP),
      hashPassword('same password', CHEAP),
    ]);
    expect(a).not.to.equal(b);
  });

  it('offers a rehash when the stored hash used weaker parameters, and only on success', async () => {
    const stored = await hashPassword('correct horse battery', WEAKER);
    const check = await verifyPassword(stored, 'correct horse battery', CHEAP);
    expect(check.ok).to.equal(true);
    expect(check.rehash).to.match(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$/);
    expect(await verifyPassword(check.rehash!, 'correct horse battery', CHEAP)).to.deep.equal({
      ok: true,
      rehash: null,
    });
    expect(await verifyPassword(stored, 'wrong password', CHEAP)).to.deep.equal({ ok: false, rehash: null });
  });

  it('migrates a hash of another Argon2 variant to argon2id', async () => {
    const stored = await rawArgon2('correct horse battery', { ...CHEAP, type: argon2i });
    const check = await verifyPassword(stored, 'correct horse battery', CHEAP);
    expect(check.ok).to.equal(true);
    expect(check.rehash).to.match(/^\$argon2id\$/);
  });

  it('treats canonically equivalent spellings as the same password', async () => {
    const composed = 'caf\u00e9 au lait';
    const decomposed = 'cafe\u0301 au lait';
    const stored = await hashPassword(composed, CHEAP);
    expect((await verifyPassword(stored, decomposed, CHEAP)).ok).to.equal(true);
  });

  it('refuses to hash absurdly long input and never matches it', async () => {
    const huge = 'x'.repeat(PASSWORD_MAX_LENGTH + 1);
    let refused: unknown;
    try {
      await hashPassword(huge, CHEAP);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(BadInput);
    expect((refused as BadInput).fields).to.have.key('password');
    const stored = await hashPassword('correct horse battery', CHEAP);
    expect(await verifyPassword(stored, huge, CHEAP)).to.deep.equal({ ok: false, rehash: null });
  });

  it('fails verification for an unknown user whatever the password', async () => {
    expect(await verifyAgainstNothing('correct horse battery', CHEAP)).to.deep.equal({
      ok: false,
      rehash: null,
    });
    expect(await verifyAgainstNothing('', CHEAP)).to.deep.equal({ ok: false, rehash: null });
  });

  it('reports a stored value that is not an Argon2 hash as an internal error', async () => {
    let failure: unknown;
    try {
      await verifyPassword('not-a-hash', 'whatever', CHEAP);
    } catch (error) {
      failure = error;
    }
    expect(failure).to.have.property('kind', 'Internal');
  });

  it('uses argon2id with the documented defaults when given no parameters', async () => {
    expect(DEFAULT_PASSWORD_HASH_PARAMS).to.deep.equal({ timeCost: 3, memoryCost: 65536, parallelism: 4 });
    const stored = await hashPassword('correct horse battery');
    expect(stored).to.match(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    expect(await verifyPassword(stored, 'correct horse battery')).to.deep.equal({ ok: true, rehash: null });
    // A hash made with the cheap test parameters is upgraded to the defaults on the next login.
    const cheap = await hashPassword('correct horse battery', CHEAP);
    expect((await verifyPassword(cheap, 'correct horse battery')).rehash).to.match(/m=65536,t=3,p=4/);
  });
});
