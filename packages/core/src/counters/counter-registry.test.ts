import { expect } from 'chai';
import { createLogger } from '../logger/logger.js';
import { CounterRegistry } from './counter-registry.js';

const names = ['users', 'posts', 'domains'] as const;
const logger = createLogger({ level: 'silent', name: 'test' });

describe('CounterRegistry', () => {
  it('reads 0 for figures nobody counts yet, and the contributed count for the others', async () => {
    const registry = new CounterRegistry(names, { logger });
    registry.contribute('users', async () => 3);
    expect(await registry.snapshot()).to.deep.equal({ users: 3, posts: 0, domains: 0 });
  });

  it('reads 0 for a failing or nonsensical counter instead of failing the whole snapshot', async () => {
    const registry = new CounterRegistry(names, { logger });
    registry.contribute('users', async () => {
      throw new Error('table missing');
    });
    registry.contribute('posts', async () => -4);
    registry.contribute('domains', async () => 2.7);
    expect(await registry.snapshot()).to.deep.equal({ users: 0, posts: 0, domains: 2 });
  });

  it('can let a failing counter fail the snapshot instead', async () => {
    const registry = new CounterRegistry(names, { failuresReadZero: false });
    registry.contribute('users', async () => {
      throw new Error('table missing');
    });
    await registry.snapshot().then(
      () => expect.fail('a failed count was hidden'),
      (error: Error) => expect(error.message).to.equal('table missing'),
    );
  });

  it('refuses a second counter for one figure and an unknown figure', () => {
    const registry = new CounterRegistry(names);
    registry.contribute('posts', async () => 1);
    expect(() => registry.contribute('posts', async () => 2)).to.throw(/already has a counter/);
    expect(() => registry.contribute('likes' as 'posts', async () => 2)).to.throw(/not a figure/);
  });

  it('reuses a snapshot within the TTL, shares one computation between concurrent callers, then counts afresh', async () => {
    let now = 1_000;
    let calls = 0;
    const registry = new CounterRegistry(names, { ttlMs: 60_000, now: () => now });
    registry.contribute('users', async () => ++calls);
    const [a, b] = await Promise.all([registry.snapshot(), registry.snapshot()]);
    expect([a.users, b.users, calls]).to.deep.equal([1, 1, 1]);
    now += 59_000;
    expect((await registry.snapshot()).users).to.equal(1);
    now += 2_000;
    expect((await registry.snapshot()).users).to.equal(2);
  });

  it('counts afresh every time without a TTL', async () => {
    let calls = 0;
    const registry = new CounterRegistry(names);
    registry.contribute('users', async () => ++calls);
    await registry.snapshot();
    expect((await registry.snapshot()).users).to.equal(2);
  });
});
