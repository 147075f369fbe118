// The launcher's HTTPS (`HTTPS=1 npm start`): a certificate authority of this machine and a
// certificate for localhost it signs, kept under DATA_DIR/tls and reused until they near expiry.
// Trusting the CA once (README) makes browsers and https-only clients accept both services.
import 'reflect-metadata'; // @peculiar/x509 resolves its parsers through tsyringe, which needs it
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

export interface LocalTls {
  /** The CA certificate: what a browser, an OS or NODE_EXTRA_CA_CERTS is told to trust. */
  caFile: string;
  /** The certificate for localhost, 127.0.0.1 and ::1, followed by the CA's (the chain a server sends). */
  certFile: string;
  keyFile: string;
  /** What this call had to make anew (nothing on most runs). */
  created: { ca: boolean; cert: boolean };
}

export interface LocalTlsOptions {
  now?: () => Date;
  /** Days a new certificate for localhost is valid (default 397: under every browser's ceiling). */
  certDays?: number;
  /** Days a new CA is valid (default ten years). */
  caDays?: number;
}

/** Names the localhost certificate is valid for. */
export const LOCAL_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '::1'] } as const;
/** A certificate this close to its end is replaced, so a long-running service is not caught out. */
const RENEW_BEFORE_MS = 7 * 86_400_000;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** The CA and the localhost certificate in `dir`: read when still good, else (re)made. */
export async function ensureLocalTls(dir: string, options: LocalTlsOptions = {}): Promise<LocalTls> {
  const now = options.now ?? (() => new Date());
  const files = {
    caFile: join(dir, 'ca.pem'),
    caKeyFile: join(dir, 'ca-key.pem'),
    certFile: join(dir, 'localhost.pem'),
    keyFile: join(dir, 'localhost-key.pem'),
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });

  let ca = await readCa(files.caFile, files.caKeyFile, now());
  const caCreated = ca === null;
  if (ca === null) {
    ca = await createCa(now(), options.caDays ?? 3650);
    await writeSecret(files.caKeyFile, ca.keyPem);
    await writeFile(files.caFile, ca.cert.toString('pem') + '\n');
  }

  const certGood = !caCreated && (await certStillGood(files.certFile, files.keyFile, ca.cert, now()));
  if (!certGood) {
    const issued = await issueLocalhostCert(ca, now(), options.certDays ?? 397);
    await writeSecret(files.keyFile, issued.keyPem);
    await writeFile(files.certFile, `${issued.cert.toString('pem')}\n${ca.cert.toString('pem')}\n`);
  }
  return {
    caFile: files.caFile,
    certFile: files.certFile,
    keyFile: files.keyFile,
    created: { ca: caCreated, cert: !certGood },
  };
}

interface Authority {
  cert: x509.X509Certificate;
  keys: { privateKey: CryptoKey; publicKey: CryptoKey };
  keyPem: string;
}

async function createCa(now: Date, days: number): Promise<Authority> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const name = `CN=Agora local development CA (${sanitizeName(hostname())}), O=Agora development`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + days * 86_400_000),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys, keyPem: await privateKeyPem(keys.privateKey) };
}

async function issueLocalhostCert(
  ca: Authority,
  now: Date,
  days: number,
): Promise<{ cert: x509.X509Certificate; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=localhost, O=Agora development',
    issuer: ca.cert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + days * 86_400_000),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...LOCAL_NAMES.dns.map((value) => ({ type: 'dns' as const, value })),
        ...LOCAL_NAMES.ip.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  return { cert, keyPem: await privateKeyPem(keys.privateKey) };
}

/** The stored CA when it is whole, a CA, matches its key and is not near its end. */
async function readCa(certFile: string, keyFile: string, now: Date): Promise<Authority | null> {
  const [certPem, keyPem] = await Promise.all([readText(certFile), readText(keyFile)]);
  if (certPem === null || keyPem === null) return null;
  try {
    const cert = new x509.X509Certificate(certPem);
    const native = new X509Certificate(certPem);
    if (!native.ca || !fresh(native, now)) return null;
    const privateKey = await webcrypto.subtle.importKey(
      'pkcs8',
      x509.PemConverter.decodeFirst(keyPem),
      ALGORITHM,
      true,
      ['sign'],
    );
    const publicKey = await cert.publicKey.export(ALGORITHM, ['verify']);
    // The key must be this certificate's: sign and verify a sample.
    const sample = randomBytes(32);
    const signature = await webcrypto.subtle.sign(ALGORITHM, privateKey, sample);
    if (!(await webcrypto.subtle.verify(ALGORITHM, publicKey, signature, sample))) return null;
    return { cert, keys: { privateKey, publicKey }, keyPem };
  } catch {
    return null; // unreadable: made anew
  }
}

/** The stored localhost certificate when signed by `ca`, valid for the local names and not near its end. */
async function certStillGood(
  certFile: string,
  keyFile: string,
  ca: x509.X509Certificate,
  now: Date,
): Promise<boolean> {
  const [certPem, keyPem] = await Promise.all([readText(certFile), readText(keyFile)]);
  if (certPem === null || keyPem === null) return false;
  try {
    const native = new X509Certificate(certPem);
    return (
      fresh(native, now) &&
      native.verify(new X509Certificate(ca.toString('pem')).publicKey) &&
      native.checkHost('localhost') !== undefined &&
      LOCAL_NAMES.ip.every((ip) => native.checkIP(ip) !== undefined) &&
      native.checkPrivateKey(createPrivateKey(keyPem))
    );
  } catch {
    return false;
  }
}

function fresh(cert: X509Certificate, now: Date): boolean {
  return (
    new Date(cert.validFrom) <= now && new Date(cert.validTo).getTime() - now.getTime() > RENEW_BEFORE_MS
  );
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function writeSecret(file: string, content: string): Promise<void> {
  await writeFile(file, content, { mode: 0o600 });
  await chmod(file, 0o600); // an older file keeps its mode on overwrite
}

/** A positive 128-bit serial number (RFC 5280: at most 20 octets, non-negative). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function sanitizeName(value: string): string {
  return value.replace(/[^A-Za-z0-9.-]/g, '').slice(0, 40) || 'this machine';
}
