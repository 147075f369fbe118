import { createHmac, createPublicKey, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DOMParser } from '@xmldom/xmldom';
import { create } from 'xmlbuilder2';
import { NS, PUBLIC_COLLECTION, VERBS } from './atom.js';

const ME_NS = 'http://salmon-protocol.org/ns/magic-env';

/** An account of the fake OStatus server (no ActivityPub: WebFinger, an Atom feed, Salmon, a hub). */
export interface FakeOStatusAccount {
  username: string;
  /** The feed author's id (`<author><uri>`). */
  uri: string;
  feedUrl: string;
  /** What WebFinger advertises as `salmon`. */
  salmonUrl: string;
  privateKey: KeyObject;
  /** `data:application/magic-public-key,RSA.<n>.<e>` */
  magicPublicKey: string;
}

/** A Salmon slap the server received, checked as a 2012 OStatus server would check it. */
export interface ReceivedSlap {
  username: string;
  /** The envelope's signature verified with the `magic-public-key` the sender's WebFinger publishes. */
  verified: boolean;
  reason?: string;
  /** The decoded Atom entry. */
  entry: string;
  verb: string | null;
  contentType: string | undefined;
}

export interface HubSubscription {
  topic: string;
  callback: string;
  secret: string;
}

/**
 * An OStatus server of the GNU social / Mastodon 1.x kind on loopback, for tests: accounts known by
 * WebFinger (`updates-from`, `salmon`, `magic-public-key`, no ActivityPub `self`), their Atom feeds
 * naming a hub, a Salmon endpoint that verifies magic envelopes on its own (RSA-SHA256 over the
 * data and the base64url type, encoding and algorithm) with the key the sender's WebFinger
 * publishes, and a PuSH hub that verifies the subscriber's intent and pushes signed entries.
 */
export class FakeOStatus {
  readonly slaps: ReceivedSlap[] = [];
  /** Every form POSTed to the hub (`hub.mode`, `hub.topic`, `hub.callback`, `hub.secret`, …). */
  readonly hubRequests: URLSearchParams[] = [];
  /** Subscriptions whose callback echoed the challenge. */
  readonly subscriptions: HubSubscription[] = [];
  private readonly accounts = new Map<string, FakeOStatusAccount>();
  private pending: Array<Promise<void>> = [];

  private readonly server: Server;
  private base = '';

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const url = new URL(request.url ?? '/', this.origin);
        const work = this.handle(request.method ?? 'GET', url, request.headers, body)
          .then(({ status, type, text }) => {
            response.writeHead(status, type ? { 'content-type': type } : {}).end(text ?? '');
          })
          .catch((error: unknown) => {
            response.writeHead(500).end(String(error));
          });
        this.pending.push(work);
      });
    });
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    return this.base;
  }

  get host(): string {
    return new URL(this.origin).host;
  }

  get hubUrl(): string {
    return `${this.origin}/hub`;
  }

  static async start(): Promise<FakeOStatus> {
    const fake = new FakeOStatus();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Adds an account; `salmonUrl` overrides the endpoint WebFinger advertises. */
  addAccount(username: string, options: { salmonUrl?: string } = {}): FakeOStatusAccount {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' });
    const padded = (value: string) =>
      Buffer.from(value, 'base64url').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    const account: FakeOStatusAccount = {
      username,
      uri: `${this.origin}/user/${username}`,
      feedUrl: `${this.origin}/api/statuses/user_timeline/${username}.atom`,
      salmonUrl: options.salmonUrl ?? `${this.origin}/main/salmon/user/${username}`,
      privateKey,
      magicPublicKey: `data:application/magic-public-key,RSA.${padded(jwk.n!)}.${padded(jwk.e!)}`,
    };
    this.accounts.set(username, account);
    return account;
  }

  /** An Atom entry as such a server writes it (a note by `account`, public, optionally a reply). */
  entry(
    account: FakeOStatusAccount,
    fields: { id: string; content: string; inReplyTo?: string; authorUri?: string; verb?: string },
  ): string {
    const doc = create({ version: '1.0', encoding: 'UTF-8' });
    const entry = doc.ele(NS.atom, 'entry', {
      'xmlns:thr': NS.thr,
      'xmlns:activity': NS.activity,
      'xmlns:ostatus': NS.ostatus,
      'xmlns:poco': NS.poco,
    });
    entry.ele('id').txt(fields.id);
    entry.ele('title').txt('A note');
    entry.ele('published').txt(new Date().toISOString());
    entry.ele('updated').txt(new Date().toISOString());
    const author = entry.ele('author');
    author.ele('uri').txt(fields.authorUri ?? account.uri);
    author.ele('name').txt(account.username);
    entry.ele('activity:object-type').txt('http://activitystrea.ms/schema/1.0/note');
    entry.ele('activity:verb').txt(fields.verb ?? VERBS.post);
    entry.ele('content', { type: 'html' }).txt(fields.content);
    entry.ele('link', { rel: 'alternate', type: 'text/html', href: `${fields.id}.html` });
    entry.ele('link', {
      rel: 'mentioned',
      'ostatus:object-type': 'http://activitystrea.ms/schema/1.0/collection',
      href: PUBLIC_COLLECTION,
    });
    if (fields.inReplyTo) entry.ele('thr:in-reply-to', { ref: fields.inReplyTo });
    return doc.end();
  }

  /** A one-entry feed of `account`, as its hub pushes it. */
  feedOf(account: FakeOStatusAccount, entries: string[]): string {
    const body = entries.map((entry) => entry.replace(/^<\?xml[^>]*\?>/, '')).join('');
    return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="${NS.atom}"><id>${account.feedUrl}</id><title>${account.username}</title><author><uri>${account.uri}</uri><name>${account.username}</name></author><link rel="hub" href="${this.hubUrl}"/>${body}</feed>`;
  }

  /**
   * The hub pushes `body` to every verified subscriber of `topic`, signed with its secret (or with
   * `signature` as given); returns the callbacks' statuses.
   */
  async publish(topic: string, body: string, options: { signature?: string } = {}): Promise<number[]> {
    const statuses: number[] = [];
    for (const subscription of this.subscriptions.filter((s) => s.topic === topic)) {
      const signature =
        options.signature ?? `sha1=${createHmac('sha1', subscription.secret).update(body).digest('hex')}`;
      const response = await fetch(subscription.callback, {
        method: 'POST',
        headers: { 'content-type': 'application/atom+xml', 'x-hub-signature': signature },
        body,
      });
      statuses.push(response.status);
    }
    return statuses;
  }

  /** Waits for the requests in progress (a slap's verification fetches the sender's WebFinger). */
  async settled(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
  }

  async stop(): Promise<void> {
    await this.settled();
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(
    method: string,
    url: URL,
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ): Promise<{ status: number; type?: string; text?: string }> {
    if (method === 'GET' && url.pathname === '/.well-known/webfinger') {
      const match = /^acct:([^@]+)@(.+)$/.exec(url.searchParams.get('resource') ?? '');
      const account = match && match[2] === this.host ? this.accounts.get(match[1]!) : undefined;
      if (!account) return { status: 404 };
      return {
        status: 200,
        type: 'application/jrd+json',
        text: JSON.stringify({
          subject: `acct:${account.username}@${this.host}`,
          aliases: [account.uri],
          links: [
            { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: account.uri },
            {
              rel: 'http://schemas.google.com/g/2010#updates-from',
              type: 'application/atom+xml',
              href: account.feedUrl,
            },
            { rel: 'salmon', href: account.salmonUrl },
            { rel: 'magic-public-key', href: account.magicPublicKey },
          ],
        }),
      };
    }
    const feed = /^\/api\/statuses\/user_timeline\/([^/]+)\.atom$/.exec(url.pathname);
    if (method === 'GET' && feed) {
      const account = this.accounts.get(feed[1]!);
      if (!account) return { status: 404 };
      return { status: 200, type: 'application/atom+xml', text: this.profileFeed(account) };
    }
    const salmon = /^\/main\/salmon\/user\/([^/]+)$/.exec(url.pathname);
    if (method === 'POST' && salmon) {
      const slap = await this.verifySlap(salmon[1]!, body);
      this.slaps.push({ ...slap, contentType: headers['content-type'] as string | undefined });
      return { status: slap.verified ? 200 : 401 };
    }
    if (method === 'POST' && url.pathname === '/hub') return this.hub(new URLSearchParams(body));
    return { status: 404 };
  }

  private profileFeed(account: FakeOStatusAccount): string {
    const doc = create({ version: '1.0', encoding: 'UTF-8' });
    const feed = doc.ele(NS.atom, 'feed', { 'xmlns:poco': NS.poco, 'xmlns:activity': NS.activity });
    feed.ele('id').txt(account.feedUrl);
    feed.ele('title').txt(`${account.username} timeline`);
    feed.ele('updated').txt(new Date().toISOString());
    const author = feed.ele('author');
    author.ele('activity:object-type').txt('http://activitystrea.ms/schema/1.0/person');
    author.ele('uri').txt(account.uri);
    author.ele('name').txt(account.username);
    author.ele('summary').txt('An account of <b>2012</b>');
    author.ele('link', { rel: 'alternate', type: 'text/html', href: account.uri });
    author.ele('poco:preferredUsername').txt(account.username);
    author
      .ele('poco:displayName')
      .txt(`${account.username[0]!.toUpperCase()}${account.username.slice(1)} of GNU social`);
    feed.ele('link', { rel: 'hub', href: this.hubUrl });
    feed.ele('link', { rel: 'salmon', href: account.salmonUrl });
    feed.ele('link', { rel: 'self', type: 'application/atom+xml', href: account.feedUrl });
    return doc.end();
  }

  /** Checks a magic envelope independently of the code under test (Magic Signatures draft §3.2, §8). */
  private async verifySlap(username: string, xml: string): Promise<Omit<ReceivedSlap, 'contentType'>> {
    const failed = (reason: string, entry = '') => ({ username, verified: false, reason, entry, verb: null });
    const dom = new DOMParser().parseFromString(xml, 'application/xml');
    const env = dom.documentElement;
    if (!env || env.namespaceURI !== ME_NS || env.localName !== 'env') return failed('not an envelope');
    const field = (name: string) => env.getElementsByTagNameNS(ME_NS, name)[0] ?? null;
    const dataNode = field('data');
    const data = (dataNode?.textContent ?? '').replace(/\s/g, '');
    const type = dataNode?.getAttribute('type') ?? '';
    const encoding = (field('encoding')?.textContent ?? '').trim();
    const alg = (field('alg')?.textContent ?? '').trim();
    const sig = (field('sig')?.textContent ?? '').replace(/\s/g, '');
    if (encoding !== 'base64url' || alg !== 'RSA-SHA256') return failed('encoding or alg');
    const entry = Buffer.from(data, 'base64url').toString('utf8');
    const parsed = new DOMParser().parseFromString(entry, 'application/xml').documentElement;
    const verb = parsed?.getElementsByTagNameNS(NS.activity, 'verb')[0]?.textContent?.trim() ?? null;
    // The sender's key: the magic-public-key its WebFinger publishes for the author's address.
    const author = parsed?.getElementsByTagNameNS(NS.atom, 'author')[0];
    const acct = author?.getElementsByTagNameNS(NS.atom, 'email')[0]?.textContent?.trim() ?? '';
    const host = acct.split('@')[1];
    if (!host) return failed('no author address', entry);
    const jrd = (await (
      await fetch(`http://${host}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${acct}`)}`)
    ).json()) as { links: Array<{ rel: string; href?: string }> };
    const magic = jrd.links.find((link) => link.rel === 'magic-public-key')?.href ?? '';
    const match = /^data:application\/magic-public-key,RSA\.([^.]+)\.([^.]+)$/.exec(magic);
    if (!match) return failed('no magic-public-key', entry);
    const key = createPublicKey({
      key: {
        kty: 'RSA',
        n: Buffer.from(match[1]!, 'base64url').toString('base64url'),
        e: Buffer.from(match[2]!, 'base64url').toString('base64url'),
      },
      format: 'jwk',
    });
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    // The era signed the padded base64url of the parameters; both forms are tried, as peers did.
    const padded = (text: string) =>
      Buffer.from(text).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    const verified = [padded, b64].some((encode) =>
      createVerify('RSA-SHA256')
        .update([data, encode(type), encode(encoding), encode(alg)].join('.'))
        .verify(key, Buffer.from(sig, 'base64url')),
    );
    return verified
      ? { username, verified, entry, verb }
      : { username, verified, reason: 'signature', entry, verb };
  }

  /** PuSH 0.4: verification of intent (the callback echoes a challenge) before the 202. */
  private async hub(form: URLSearchParams): Promise<{ status: number; text?: string }> {
    this.hubRequests.push(form);
    const mode = form.get('hub.mode');
    const topic = form.get('hub.topic') ?? '';
    const callback = form.get('hub.callback') ?? '';
    if ((mode !== 'subscribe' && mode !== 'unsubscribe') || !topic || !callback)
      return { status: 400, text: 'Bad request' };
    const challenge = `challenge-${Math.random().toString(36).slice(2)}`;
    const verify = new URL(callback);
    verify.searchParams.set('hub.mode', mode);
    verify.searchParams.set('hub.topic', topic);
    verify.searchParams.set('hub.challenge', challenge);
    if (mode === 'subscribe') verify.searchParams.set('hub.lease_seconds', '86400');
    const answer = await fetch(verify);
    if (answer.status !== 200 || (await answer.text()) !== challenge) return { status: 202 };
    const others = this.subscriptions.filter((s) => !(s.topic === topic && s.callback === callback));
    this.subscriptions.splice(0, this.subscriptions.length, ...others);
    if (mode === 'subscribe')
      this.subscriptions.push({ topic, callback, secret: form.get('hub.secret') ?? '' });
    return { status: 202 };
  }
}
