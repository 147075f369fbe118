import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { computeDigest, verifyRequest } from '../signatures/index.js';
import { AsyncSigner } from './async-signer.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { keyId: 'https://local.test/@alice#main-key', privateKey };
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const body = JSON.stringify({ id: 'https://local.test/activities/1', type: 'Create', content: 'hé ✓' });

/** What the receiving inbox would conclude about these headers. */
async function verifies(path: string, headers: Record<string, string>, sent = body): Promise<boolean> {
  const result = await verifyRequest(
    { method: 'POST', url: path, headers, body: Buffer.from(sent, 'utf8') },
    () => ({ publicKeyPem, owner: 'https://local.test/@alice' }),
    { scheme: 'https' },
  );
  return result.ok;
}

function signMany(
  signer: AsyncSigner,
  count: number,
  digest?: string,
): Array<Promise<Record<string, string>>> {
  return Array.from({ length: count }, (_, n) =>
    signer.signPost(
      `https://remote.test/users/u${n}/inbox`,
      { 'content-type': 'application/activity+json' },
      body,
      key,
      digest,
    ),
  );
}

describe('AsyncSigner', function () {
  it('signs POSTs off the event loop (or inline with 0) so that the inbox verifies each one', async () => {
    for (const threads of [2, 0]) {
      const signer = new AsyncSigner({ threads });
      const signed = await Promise.all(signMany(signer, 12));
      for (const [n, headers] of signed.entries()) {
        expect(headers.host).to.equal('remote.test');
        expect(headers['content-type']).to.equal('application/activity+json');
        expect(await verifies(`/users/u${n}/inbox`, headers), `request ${n}, ${threads} at once`).to.equal(
          true,
        );
      }
      // A signature is bound to its own inbox: the next one's path does not verify with it.
      expect(await verifies('/users/u1/inbox', signed[0] as Record<string, string>)).to.equal(false);
      expect(signer.running).to.equal(0);
    }
  });

  it('signs with a digest computed once for the body, which the inbox checks against what it got', async () => {
    const signer = new AsyncSigner({ threads: 2 });
    const digest = signer.digestOf(body);
    expect(digest).to.equal(computeDigest(body));
    const signed = await Promise.all(signMany(signer, 3, digest));
    for (const [n, headers] of signed.entries()) {
      expect(headers.digest).to.equal(digest);
      expect(await verifies(`/users/u${n}/inbox`, headers)).to.equal(true);
      expect(await verifies(`/users/u${n}/inbox`, headers, `${body} `)).to.equal(false);
    }
  });

  it('lets the event loop run while many signatures are computed on the signing threads', async () => {
    const signer = new AsyncSigner({ threads: 1 });
    let done = 0;
    const pending = signMany(signer, 40).map((signed) =>
      signed.then((headers) => {
        done += 1;
        return headers;
      }),
    );
    expect(signer.running).to.equal(40);
    // A callback queued now runs before the signatures are all done: nothing blocks the loop.
    const doneWhenLoopRan = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
    const signed = await Promise.all(pending);
    expect(doneWhenLoopRan).to.be.below(40);
    expect(signer.running).to.equal(0);
    expect(await verifies('/users/u39/inbox', signed[39] as Record<string, string>)).to.equal(true);
  });

  it('answers a bad request with an error and keeps signing; refuses to sign once closed', async () => {
    const signer = new AsyncSigner({ threads: 1 });
    const error = await signer
      .signPost('https://remote.test/inbox', {}, body, { ...key, keyId: 'has "quotes"' })
      .then(
        () => null,
        (reason: unknown) => reason,
      );
    expect(error).to.be.instanceOf(Error).with.property('message').that.matches(/keyId/);
    const [next] = await Promise.all(signMany(signer, 1));
    expect(await verifies('/users/u0/inbox', next as Record<string, string>)).to.equal(true);
    expect(signer.running).to.equal(0);
    signer.close();
    const refused = await signMany(signer, 1)[0]?.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(refused).to.be.instanceOf(Error).with.property('message', 'The signer is closed');
  });
});
