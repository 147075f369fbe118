import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, get, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalTls } from './local-tls.js';

const DAY = 86_400_000;

/** GET over TLS trusting only `ca`; resolves with the body or rejects with the TLS error. */
function getTrusting(url: string, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

// Issue 15 §8: `HTTPS=1 npm start` serves a certificate of a local CA, kept under DATA_DIR/tls.
describe('the launcher’s local CA and localhost certificate (issue 15 §8)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agora-tls-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes a CA and a certificate for localhost, 127.0.0.1 and ::1 that a client trusting the CA accepts', async () => {
    const tls = await ensureLocalTls(dir);
    expect(tls.created).to.deep.equal({ ca: true, cert: true });
    const ca = await readFile(tls.caFile);
    const caCert = new X509Certificate(ca);
    expect(caCert.ca).to.equal(true);
    const leaf = new X509Certificate(await readFile(tls.certFile));
    expect(leaf.ca).to.equal(false);
    expect(leaf.verify(caCert.publicKey)).to.equal(true);
    expect(leaf.subjectAltName).to.equal('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    // Private keys are for this user only.
    expect((await stat(tls.keyFile)).mode & 0o777).to.equal(0o600);
    expect((await stat(join(dir, 'ca-key.pem'))).mode & 0o777).to.equal(0o600);

    const server: Server = createServer(
      { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
      (_req, res) => res.end('hello over TLS'),
    );
    server.listen(0, '::');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ['localhost', '127.0.0.1', '[::1]']) {
        expect(await getTrusting(`https://${host}:${port}/`, ca)).to.equal('hello over TLS');
      }
      // Without the CA, the certificate is refused: it is trusted only where the CA is.
      const other = await ensureLocalTls(join(dir, 'other'));
      let refused: unknown;
      await getTrusting(`https://localhost:${port}/`, await readFile(other.caFile)).catch(
        (error: unknown) => {
          refused = error;
        },
      );
      expect((refused as NodeJS.ErrnoException | undefined)?.code).to.match(/CERT|SIGNATURE|ISSUER/);
    } finally {
      server.close();
    }
  });

  it('reuses both files across runs, renews the certificate near its end, and everything when the CA expires', async () => {
    const first = await ensureLocalTls(dir, { certDays: 30, caDays: 100 });
    const [ca, cert] = [await readFile(first.caFile), await readFile(first.certFile)];

    const again = await ensureLocalTls(dir, { certDays: 30, caDays: 100 });
    expect(again.created).to.deep.equal({ ca: false, cert: false });
    expect(await readFile(again.certFile)).to.deep.equal(cert);

    // 25 days on, the certificate is within a week of its end: a new one, signed by the same CA.
    const later = new Date(Date.now() + 25 * DAY);
    const renewed = await ensureLocalTls(dir, { now: () => later, certDays: 30, caDays: 100 });
    expect(renewed.created).to.deep.equal({ ca: false, cert: true });
    expect(await readFile(renewed.caFile)).to.deep.equal(ca);
    const leaf = new X509Certificate(await readFile(renewed.certFile));
    expect(leaf.verify(new X509Certificate(ca).publicKey)).to.equal(true);
    expect(new Date(leaf.validTo).getTime()).to.be.greaterThan(later.getTime() + 29 * DAY);

    // Past the CA's end: a new CA and a certificate it signs.
    const muchLater = new Date(Date.now() + 120 * DAY);
    const replaced = await ensureLocalTls(dir, { now: () => muchLater, certDays: 30, caDays: 100 });
    expect(replaced.created).to.deep.equal({ ca: true, cert: true });
    expect(await readFile(replaced.caFile)).to.not.deep.equal(ca);
  });

  it('replaces files that are damaged or do not belong together', async () => {
    const first = await ensureLocalTls(dir);
    const other = await ensureLocalTls(join(dir, 'other'));
    // A certificate of another CA in place of ours is re-issued by ours.
    await rm(first.certFile);
    await copyFile(other.certFile, first.certFile);
    expect((await ensureLocalTls(dir)).created).to.deep.equal({ ca: false, cert: true });
    await writeFile(first.caFile, 'not a certificate');
    expect((await ensureLocalTls(dir)).created).to.deep.equal({ ca: true, cert: true });
  });
});
