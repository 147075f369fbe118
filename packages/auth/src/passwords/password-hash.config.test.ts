import { expect } from 'chai';
import { z } from 'zod';
import { DEFAULT_PASSWORD_HASH_PARAMS, hashPassword, verifyPassword } from './password-hash.js';
import {
  checkPasswordHashCostEnv,
  passwordHashCostEnv,
  passwordHashParams,
  TEST_PASSWORD_HASH_PARAMS,
} from './password-hash.config.js';

const schema = z
  .object({ NODE_ENV: z.enum(['development', 'production', 'test']), ...passwordHashCostEnv() })
  .superRefine(checkPasswordHashCostEnv);

describe('PASSWORD_HASH_COST', () => {
  it('is production unless set, and test only with NODE_ENV=test', () => {
    expect(schema.parse({ NODE_ENV: 'production' }).PASSWORD_HASH_COST).to.equal('production');
    expect(schema.parse({ NODE_ENV: 'test', PASSWORD_HASH_COST: 'test' }).PASSWORD_HASH_COST).to.equal(
      'test',
    );
    for (const NODE_ENV of ['production', 'development']) {
      const refused = schema.safeParse({ NODE_ENV, PASSWORD_HASH_COST: 'test' });
      expect(refused.success).to.equal(false);
      expect(refused.error?.issues[0]?.path).to.deep.equal(['PASSWORD_HASH_COST']);
    }
    expect(schema.safeParse({ NODE_ENV: 'test', PASSWORD_HASH_COST: 'cheap' }).success).to.equal(false);
    expect(passwordHashParams('production')).to.deep.equal(DEFAULT_PASSWORD_HASH_PARAMS);
    expect(passwordHashParams('test')).to.deep.equal(TEST_PASSWORD_HASH_PARAMS);
  });

  it('verifies hashes of either cost under the other: argon2 keeps the parameters in the hash', async function () {
    this.timeout(10_000);
    const test = passwordHashParams('test');
    const production = passwordHashParams('production');
    const cheap = await hashPassword('correct horse battery', test);
    expect(cheap).to.match(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    const expensive = await hashPassword('correct horse battery', production);
    expect((await verifyPassword(expensive, 'correct horse battery', test)).ok).to.equal(true);
    expect((await verifyPassword(expensive, 'wrong horse battery', test)).ok).to.equal(false);
    expect((await verifyPassword(cheap, 'correct horse battery', production)).ok).to.equal(true);
  });
});
