import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signRequest, signRequestRfc9421, verifyRequest, type ResolvedKey } from '../signatures/index.js';

/**
 * How the fake signs an outgoing POST: correctly, broken in one chosen way, or valid with a chosen
 * key owner, signing time (the same time signs the same bytes) or scheme (draft-cavage by default).
 */
export type SigningMode =
  | 'valid'
  | 'unsigned'
  | 'wrong-key'
  | 'stale-date'
  | 'tampered-body'
  | 'no-digest'
  | { keyOf?: FakeActor; signedAt?: Date; scheme?: 'cavage' | 'rfc9421' };

export interface FakeActor {
  username: string;
  uri: string;
  keyId: string;
  inbox: string;
  publicKeyPem: string;
  privateKey: KeyObject;
  manuallyApprovesFollowers: boolean;
  /** Extra properties merged into the served document. */
  extra: Record<string, unknown>;
}

export interface ReceivedActivity {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Whether the request's signature verified against the sending actor's key (fetched from it). */
  verified: boolean;
  reason?: string;
}

export interface SendResult {
  status: number;
  body: string;
}

function rsaPair(): { publicKeyPem: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string, privateKey };
}

/**
 * A remote ActivityPub instance on loopback for tests: serves its actors (documents and
 * WebFinger), sends signed activities (or deliberately broken ones), and records what it receives,
 * verifying each delivery's signature the way a real peer would.
 */
export class FakeRemote {
  readonly received: ReceivedActivity[] = [];
  private readonly actors = new Map<string, FakeActor>();
  private readonly objects = new Map<string, Record<string, unknown>>();
  private waiters: Array<() => void> = [];
  private sent = 0;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<FakeRemote> {
    const holder: { remote?: FakeRemote } = {};
    const server = createServer((req, res) => {
      holder.remote!.handle(req).then(
        ({ status, type, body }) => {
          res.writeHead(status, { 'content-type': type });
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.remote = new FakeRemote(server, `http://127.0.0.1:${port}`);
    return holder.remote;
  }

  get host(): string {
    return new URL(this.origin).host;
  }

  addActor(
    username: string,
    options: { manuallyApprovesFollowers?: boolean; extra?: Record<string, unknown> } = {},
  ): FakeActor {
    const uri = `${this.origin}/users/${username}`;
    const actor: FakeActor = {
      username,
      uri,
      keyId: `${uri}#main-key`,
      inbox: `${uri}/inbox`,
      ...rsaPair(),
      manuallyApprovesFollowers: options.manuallyApprovesFollowers ?? false,
      extra: options.extra ?? {},
    };
    this.actors.set(username, actor);
    return actor;
  }

  /** Serves `document` at `path` (an event, a note: what peers fetch by URL); returns its URL. */
  serveObject(path: string, document: Record<string, unknown>): string {
    this.objects.set(path, document);
    return `${this.origin}${path}`;
  }

  /** Replaces an actor's key pair (key rotation): peers must re-fetch the document to verify. */
  rotateKey(actor: FakeActor): void {
    Object.assign(actor, rsaPair());
  }

  document(actor: FakeActor): Record<string, unknown> {
    return {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: actor.uri,
      type: 'Person',
      preferredUsername: actor.username,
      name: actor.username,
      inbox: actor.inbox,
      outbox: `${actor.uri}/outbox`,
      followers: `${actor.uri}/followers`,
      following: `${actor.uri}/following`,
      endpoints: { sharedInbox: `${this.origin}/inbox` },
      manuallyApprovesFollowers: actor.manuallyApprovesFollowers,
      publicKey: { id: actor.keyId, owner: actor.uri, publicKeyPem: actor.publicKeyPem },
      ...actor.extra,
    };
  }

  /** POSTs an activity to an inbox, signed as `actor` according to `mode`. */
  async send(
    actor: FakeActor,
    inboxUrl: string,
    activity: object,
    mode: SigningMode = 'valid',
  ): Promise<SendResult> {
    const body = JSON.stringify(activity);
    const headers: Record<string, string> = { 'content-type': 'application/activity+json' };
    let signed: Record<string, string> = { ...headers, host: new URL(inboxUrl).host };
    if (mode !== 'unsigned') {
      const options = typeof mode === 'object' ? mode : {};
      const keyOwner = options.keyOf ?? actor;
      const privateKey = mode === 'wrong-key' ? rsaPair().privateKey : keyOwner.privateKey;
      const now =
        mode === 'stale-date' ? new Date(Date.now() - 14 * 3600 * 1000) : (options.signedAt ?? new Date());
      signed = (options.scheme === 'rfc9421' ? signRequestRfc9421 : signRequest)(
        { method: 'POST', url: inboxUrl, headers, body },
        { keyId: keyOwner.keyId, privateKey },
        { now },
      );
      if (mode === 'no-digest') {
        signed = signRequest(
          { method: 'POST', url: inboxUrl, headers },
          { keyId: keyOwner.keyId, privateKey },
          { now },
        );
        // Signed as a body-less request: the Digest header is neither sent nor signed.
        delete signed.digest;
        signed.signature = signed.signature!.replace(
          '(request-target) host date digest',
          '(request-target) host date',
        );
      }
    }
    const payload = mode === 'tampered-body' ? body.replace(/}$/, ',"tampered":true}') : body;
    return post(inboxUrl, signed, payload);
  }

  /** Sends `from`'s Follow of `targetUri` to `inboxUrl`; returns the answer and the activity sent. */
  async follow(
    from: FakeActor,
    targetUri: string,
    inboxUrl: string,
    mode: SigningMode = 'valid',
  ): Promise<{
    answer: SendResult;
    activity: { id: string; type: 'Follow'; actor: string; object: string };
  }> {
    const activity = {
      id: `${from.uri}/follows/${++this.sent}`,
      type: 'Follow' as const,
      actor: from.uri,
      object: targetUri,
    };
    return { answer: await this.send(from, inboxUrl, activity, mode), activity };
  }

  /** Waits for the Accept answering the activity `activityId` (its `object` by id or inline). */
  async acceptOf(activityId: string, timeoutMs?: number): Promise<ReceivedActivity> {
    const answers = (received: ReceivedActivity) => {
      const object = received.body.object as string | { id?: unknown } | undefined;
      return (
        received.body.type === 'Accept' && (typeof object === 'string' ? object : object?.id) === activityId
      );
    };
    await this.waitFor((received) => received.some(answers), timeoutMs);
    return this.received.find(answers)!;
  }

  /** Resolves once `predicate` holds for what was received (or rejects after `timeoutMs`). */
  async waitFor(predicate: (received: ReceivedActivity[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`FakeRemote: nothing matching arrived within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; type: string; body: string }> {
    const url = new URL(req.url ?? '/', this.origin);
    const json = (status: number, value: unknown) => ({
      status,
      type: 'application/activity+json',
      body: JSON.stringify(value),
    });
    if (req.method === 'GET') {
      const match = /^\/users\/([^/]+)$/.exec(url.pathname);
      const actor = match ? this.actors.get(decodeURIComponent(match[1]!)) : undefined;
      if (actor) return json(200, this.document(actor));
      const object = this.objects.get(url.pathname);
      if (object) return json(200, object);
      if (url.pathname === '/.well-known/webfinger') {
        const name = /^acct:([^@]+)@/.exec(url.searchParams.get('resource') ?? '')?.[1];
        const found = name ? this.actors.get(name) : undefined;
        if (!found) return json(404, { error: 'not found' });
        return {
          status: 200,
          type: 'application/jrd+json',
          body: JSON.stringify({
            subject: `acct:${found.username}@${this.host}`,
            links: [{ rel: 'self', type: 'application/activity+json', href: found.uri }],
          }),
        };
      }
      return json(404, { error: 'not found' });
    }
    if (
      req.method === 'POST' &&
      (url.pathname === '/inbox' || /^\/users\/[^/]+\/inbox$/.test(url.pathname))
    ) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const verification = await verifyRequest(
        { method: 'POST', url: req.url ?? '/', headers: req.headers, body: raw },
        (keyId) => fetchKey(keyId),
        { scheme: 'http' },
      );
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        return json(400, { error: 'bad json' });
      }
      this.received.push({
        path: url.pathname,
        headers: req.headers,
        body,
        verified: verification.ok,
        ...(verification.ok ? {} : { reason: `${verification.reason}: ${verification.detail}` }),
      });
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
      return { status: 202, type: 'text/plain', body: '' };
    }
    return json(404, { error: 'not found' });
  }
}

/** Fetches a signer's key from its actor document, as a receiving peer does (loopback only). */
async function fetchKey(keyId: string): Promise<ResolvedKey | null> {
  const response = await fetch(keyId.split('#')[0]!, { headers: { accept: 'application/activity+json' } });
  if (!response.ok) return null;
  const document = (await response.json()) as { id?: string; publicKey?: { publicKeyPem?: string } };
  const pem = document.publicKey?.publicKeyPem;
  return pem && document.id ? { publicKeyPem: pem, owner: document.id } : null;
}

function post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        method: 'POST',
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers,
        // A fresh connection each time: a kept-alive one the server has just timed out gives ECONNRESET.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A GET of `url` as an ActivityPub client, HTTP-signed (cavage) by `signer` when given — how a remote
 * server fetches a private object or collection. Redirects are not followed; a JSON body is parsed,
 * anything else reads as `{}`.
 */
export async function getAs(
  url: string,
  signer?: FakeActor,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { accept: 'application/activity+json' };
  const signed = signer
    ? signRequest({ method: 'GET', url, headers }, { keyId: signer.keyId, privateKey: signer.privateKey })
    : headers;
  const response = await fetch(url, { headers: signed, redirect: 'manual' });
  const text = await response.text();
  const json = /json/.test(response.headers.get('content-type') ?? '') && text !== '';
  return { status: response.status, body: json ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
