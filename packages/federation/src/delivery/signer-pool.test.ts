import { generateKeyPairSync } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { createLogger } from '@agora/core';
import { verifyRequest } from '../signatures/index.js';
import { SignerPool, spawnSignerThread } from './signer-pool.js';

const silent = createLogger({ name: 'signer-pool-test', level: 'silent' });
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { keyId: 'https://local.test/@alice#main-key', privateKey };
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const body = JSON.stringify({ id: 'https://local.test/activities/1', type: 'Create', content: 'hé ✓' });

/** What the receiving inbox would conclude about these headers. */
async function verifies(path: string, headers: Record<string, string>): Promise<boolean> {
  const result = await verifyRequest(
    { method: 'POST', url: path, headers, body: Buffer.from(body, 'utf8') },
    () => ({ publicKeyPem, owner: 'https://local.test/@alice' }),
    { scheme: 'https' },
  );
  return result.ok;
}

function signMany(pool: SignerPool, count: number): Array<Promise<Record<string, string>>> {
  return Array.from({ length: count }, (_, n) =>
    pool.signPost(
      `https://remote.test/users/u${n}/inbox`,
      { 'content-type': 'application/activity+json' },
      body,
      key,
    ),
  );
}

describe('SignerPool', function () {
  const pools: SignerPool[] = [];
  const pool = (options: Partial<ConstructorParameters<typeof SignerPool>[0]> = {}): SignerPool => {
    const created = new SignerPool({ threads: 2, logger: silent, ...options });
    pools.push(created);
    return created;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((created) => created.close()));
  });

  it('signs POSTs on threads (or inline with 0 threads) so that the inbox verifies each one', async () => {
    for (const threads of [2, 0]) {
      const signer = pool({ threads });
      const signed = await Promise.all(signMany(signer, 12));
      expect(signer.running).to.equal(threads);
      for (const [n, headers] of signed.entries()) {
        expect(headers.host).to.equal('remote.test');
        expect(headers['content-type']).to.equal('application/activity+json');
        expect(await verifies(`/users/u${n}/inbox`, headers), `request ${n}, ${threads} threads`).to.equal(
          true,
        );
      }
      // A signature is bound to its own inbox: the next one's path does not verify with it.
      expect(await verifies('/users/u1/inbox', signed[0] as Record<string, string>)).to.equal(false);
    }
  });

  it('answers a bad request with an error and keeps signing', async () => {
    const signer = pool({ threads: 1 });
    const bad = signer.signPost('https://remote.test/inbox', {}, body, { ...key, keyId: 'has "quotes"' });
    const error = await bad.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(Error).with.property('message').that.matches(/keyId/);
    const [next] = await Promise.all(signMany(signer, 1));
    expect(await verifies('/users/u0/inbox', next as Record<string, string>)).to.equal(true);
  });

  it('survives a thread that dies mid-batch: its requests are signed by a fresh thread', async () => {
    const spawned: Worker[] = [];
    const signer = pool({
      threads: 1,
      spawn: () => {
        const thread = spawnSignerThread();
        spawned.push(thread);
        return thread;
      },
    });
    await signer.warm();
    const pending = signMany(signer, 20);
    // Killed before this test yields: none of the 20 answers can have been received.
    void spawned[0]?.terminate();
    const signed = await Promise.all(pending);
    for (const [n, headers] of signed.entries()) {
      expect(await verifies(`/users/u${n}/inbox`, headers)).to.equal(true);
    }
    expect(spawned).to.have.length(2);
    expect(signer.running).to.equal(1);
  });

  it('rejects a request after two thread deaths, and signs inline once threads cannot start', async () => {
    let spawned = 0;
    const signer = pool({
      threads: 1,
      spawn: () => {
        spawned += 1;
        return new Worker('process.exit(7)', { eval: true });
      },
    });
    const first = await signMany(signer, 1)[0]?.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(first)
      .to.be.instanceOf(Error)
      .with.property('message', 'Signing thread exited twice on this request');
    // The third thread to die unanswered switches the pool to signing on the event loop.
    const second = await (signMany(signer, 1)[0] as Promise<Record<string, string>>);
    expect(await verifies('/users/u0/inbox', second)).to.equal(true);
    expect(spawned).to.equal(3);
    expect(signer.running).to.equal(0);
  });

  it('stops its threads on close and refuses to sign afterwards', async () => {
    const signer = pool({ threads: 2 });
    await signer.warm();
    expect(signer.running).to.equal(2);
    await signer.close();
    expect(signer.running).to.equal(0);
    const refused = await signMany(signer, 1)[0]?.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(refused).to.be.instanceOf(Error).with.property('message', 'The signer pool is closed');
  });
});
