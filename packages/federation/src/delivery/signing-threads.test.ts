import { constants, generateKeyPairSync, verify } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { SigningThreads } from './signing-threads.js';

const alice = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bob = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');

describe('SigningThreads', function () {
  this.timeout(30_000);

  it('signs every string with its own key, whatever batch it travelled in', async () => {
    const threads = new SigningThreads(2);
    // Asked in one turn of the loop, interleaved: batches must break where the key changes.
    const asked = Array.from({ length: 30 }, (_, n) => ({
      owner: n % 3 === 0 ? bob : alice,
      data: `(request-target): post /users/u${n}/inbox`,
    }));
    const signatures = await Promise.all(
      asked.map(({ owner, data }) => threads.sign('rsa-v1_5-sha256', owner.privateKey, data)),
    );
    for (const [n, { owner, data }] of asked.entries()) {
      const signature = signatures[n] as Buffer;
      expect(verify('sha256', Buffer.from(data), owner.publicKey, signature), `string ${n}`).to.equal(true);
      const other = owner === alice ? bob : alice;
      expect(verify('sha256', Buffer.from(data), other.publicKey, signature)).to.equal(false);
    }
  });

  it('signs with Ed25519 and RSA-PSS as well as RSA-SHA256', async () => {
    const threads = new SigningThreads(1);
    const [edSignature, pssSignature] = await Promise.all([
      threads.sign('ed25519', ed.privateKey, 'ed'),
      threads.sign('rsa-pss-sha512', alice.privateKey, 'pss'),
    ]);
    expect(verify(null, Buffer.from('ed'), ed.publicKey, edSignature)).to.equal(true);
    expect(
      verify(
        'sha512',
        Buffer.from('pss'),
        { key: alice.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
        pssSignature,
      ),
    ).to.equal(true);
  });

  it('fails a request the key cannot sign and goes on signing the next ones', async () => {
    const threads = new SigningThreads(1);
    const [refused, signed] = await Promise.allSettled([
      threads.sign('rsa-v1_5-sha256', ed.privateKey, 'wrong key type'),
      threads.sign('rsa-v1_5-sha256', alice.privateKey, 'fine'),
    ]);
    expect(refused.status).to.equal('rejected');
    expect(signed.status).to.equal('fulfilled');
    const signature = (signed as PromiseFulfilledResult<Buffer>).value;
    expect(verify('sha256', Buffer.from('fine'), alice.publicKey, signature)).to.equal(true);
  });

  it('keeps the process alive while a signature is pending, and lets it end once the threads are idle', async () => {
    // A script that only awaits a signature: it must get it (an unsettled await would end it early)
    // and then exit by itself (the timeout would kill a process the idle threads held open).
    const script = [
      `import { generateKeyPairSync } from 'node:crypto';`,
      `import { signingThreads } from ${JSON.stringify(new URL('./signing-threads.ts', import.meta.url).href)};`,
      `const { privateKey } = generateKeyPairSync('ed25519');`,
      `console.log((await signingThreads(1).sign('ed25519', privateKey, 'x')).length);`,
    ].join('\n');
    const dir = await mkdtemp(join(tmpdir(), 'agora-signing-'));
    try {
      await writeFile(join(dir, 'sign-once.mjs'), script);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(dir, 'sign-once.mjs')],
        { timeout: 20_000 },
      );
      expect(stdout.trim()).to.equal('64');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
