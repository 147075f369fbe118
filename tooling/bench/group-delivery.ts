// The group delivery benchmark (`pnpm bench --only group-delivery`, part of a full run; issue 14
// §Performance): one post in a group with 1,000 remote members spread over 50 instances must reach
// each instance as one signed POST to its shared inbox. Its own events server and database; the 50
// instances are loopback inboxes of the federation package that verify every signature against the
// group's key, fetched from the server as a peer would.
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createSequelize } from '@agora/db';
import type { ResolvedKey } from '@agora/federation';
import { startLoopbackInbox, type LoopbackInbox } from '@agora/federation/testing';
import {
  freePort,
  launchServer,
  type RunningServer,
  type BenchEnvironment,
  type BenchOutcome,
  serviceSpec,
  BENCH_HOST,
} from './processes.js';
import { SERVICE_ENTRY } from './scenarios.js';
import { createConfirmedUsers, eventsAccessToken, eventsProfile, postGraphQL } from './seeds.js';
import { latencyFigures, type LatencyFigures } from './uploads.js';

const HOST = BENCH_HOST;
/** The group: 1,000 remote members over 50 instances. */
export const GROUP_DELIVERY_MEMBERS = 1000;
export const GROUP_DELIVERY_INSTANCES = 50;
const GIVE_UP_MS = 60_000;
const POLL_MS = 10;

export interface GroupDeliveryOptions extends BenchEnvironment {
  /** Posts sent, one after the other (each waits for its deliveries). */
  posts: number;
}

export interface GroupDeliveryResult extends BenchOutcome {
  members: number;
  instances: number;
  posts: number;
  /** Signed POSTs each instance received per post: min and max over instances and posts. */
  postsPerInstance?: { min: number; max: number };
  /** POSTs whose signature did not verify. */
  unverified?: number;
  /** From createPost's answer to the last instance's POST (ms). */
  delivery?: LatencyFigures;
  /** createPost response times (ms). */
  createPost?: LatencyFigures;
  verdict: 'PASS' | 'BELOW' | 'NOT MEASURED';
  loadAverage?: [number, number];
}

const CREATE_GROUP = `mutation($n: String!) { createGroup(preferredUsername: $n, openness: OPEN) { id } }`;
const CREATE_POST = `mutation($g: ID!, $title: String!, $body: String!) {
  createPost(attributedToId: $g, title: $title, body: $body, visibility: PUBLIC) { id url } }`;

export function formatGroupDeliveryLines(result: GroupDeliveryResult): string[] {
  const { delivery, createPost, postsPerInstance } = result;
  if (!delivery || !createPost || !postsPerInstance)
    return [`group delivery: ${result.outcome} — ${result.problems.join('; ')}`];
  const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
  return [
    `${result.posts} posts in a group of ${result.members.toLocaleString('en-US')} remote members on ${result.instances} instances` +
      (result.loadAverage ? `; load average ${result.loadAverage.join(' → ')}` : ''),
    `  createPost p50 ${ms(createPost.p50)} ms, p99 ${ms(createPost.p99)} ms`,
    `  every instance has its POST after p50 ${ms(delivery.p50)} ms, max ${ms(delivery.max)} ms`,
    `target: signed POSTs per instance per post ${postsPerInstance.min}–${postsPerInstance.max} (= 1), ` +
      `unverified ${result.unverified ?? 0} (= 0) ${result.verdict}`,
  ];
}

export async function runGroupDeliveryBench(options: GroupDeliveryOptions): Promise<GroupDeliveryResult> {
  const result: GroupDeliveryResult = {
    outcome: 'ok',
    problems: [],
    members: GROUP_DELIVERY_MEMBERS,
    instances: GROUP_DELIVERY_INSTANCES,
    posts: options.posts,
    verdict: 'NOT MEASURED',
  };
  const dataDir = join(options.dataDir, 'group-delivery');
  let server: RunningServer | undefined;
  const inboxes: LoopbackInbox[] = [];
  try {
    const databaseUrl = await options.createDatabase('group_delivery');
    const port = await freePort(HOST);
    server = await launchServer(
      serviceSpec(options, {
        name: 'events',
        entry: SERVICE_ENTRY.events,
        port,
        databaseUrl,
        dataDir,
        env: { FEDERATION_ALLOW_PRIVATE_HOSTS: HOST },
      }),
    );
    const baseUrl = server.url;
    // The group's key, fetched once from its actor document as a receiving peer does.
    const keys = new Map<string, Promise<ResolvedKey | null>>();
    const resolveKey = (keyId: string) => {
      if (!keys.has(keyId)) keys.set(keyId, fetchKey(keyId));
      return keys.get(keyId)!;
    };
    for (let i = 0; i < GROUP_DELIVERY_INSTANCES; i++) inboxes.push(await startLoopbackInbox({ resolveKey }));

    const [user] = await createConfirmedUsers(databaseUrl, 1);
    const token = await eventsAccessToken(baseUrl, user!);
    await eventsProfile(baseUrl, token);
    const group = await graphQL<{ createGroup: { id: string } }>(baseUrl, token, CREATE_GROUP, {
      n: 'bench_group',
    });
    const groupId = group.createGroup.id;
    await seedRemoteMembers(databaseUrl, groupId, inboxes);

    const post = async (n: number): Promise<{ ms: number; id: string }> => {
      const started = performance.now();
      const created = await graphQL<{ createPost: { url: string } }>(baseUrl, token, CREATE_POST, {
        g: groupId,
        title: `Bench post ${n}`,
        body: `<p>News for all ${GROUP_DELIVERY_MEMBERS} members, number ${n}</p>`,
      });
      return { ms: performance.now() - started, id: `${created.createPost.url}/activity` };
    };
    const arrived = async (activityId: string, sentAt: number): Promise<number> => {
      const giveUp = performance.now() + GIVE_UP_MS;
      for (;;) {
        if (options.signal?.aborted) throw new Error('interrupted');
        if (inboxes.every((inbox) => inbox.hits.some((hit) => hit.activityId === activityId)))
          return performance.now() - sentAt;
        if (performance.now() > giveUp)
          throw new Error(`${activityId} did not reach every instance in ${GIVE_UP_MS} ms`);
        await delay(POLL_MS);
      }
    };
    // One post (not counted) warms the request path, the signer and the key caches up.
    const warm = await post(0);
    await arrived(warm.id, performance.now());

    const loadBefore = Math.round((loadavg()[0] ?? 0) * 100) / 100;
    const createTimes: number[] = [];
    const deliveryTimes: number[] = [];
    const ids: string[] = [];
    for (let n = 1; n <= options.posts; n++) {
      const sentAt = performance.now();
      const sent = await post(n);
      createTimes.push(sent.ms);
      ids.push(sent.id);
      deliveryTimes.push(await arrived(sent.id, sentAt));
    }
    // Late duplicates would show up here: give retries a moment before counting.
    await delay(500);
    const counts = inboxes.flatMap((inbox) =>
      ids.map((id) => inbox.hits.filter((hit) => hit.activityId === id).length),
    );
    result.postsPerInstance = { min: Math.min(...counts), max: Math.max(...counts) };
    result.unverified = inboxes.reduce(
      (sum, inbox) => sum + inbox.hits.filter((hit) => hit.verified !== true).length,
      0,
    );
    result.createPost = latencyFigures(createTimes);
    result.delivery = latencyFigures(deliveryTimes);
    result.loadAverage = [loadBefore, Math.round((loadavg()[0] ?? 0) * 100) / 100];
    result.verdict =
      result.postsPerInstance.min === 1 && result.postsPerInstance.max === 1 && result.unverified === 0
        ? 'PASS'
        : 'BELOW';
    const wrongPath = inboxes.flatMap((inbox) => inbox.hits).filter((hit) => hit.path !== '/inbox').length;
    if (wrongPath > 0) result.problems.push(`${wrongPath} POST(s) not to a shared inbox`);
    if (result.problems.length > 0) result.outcome = 'errors';
  } catch (error) {
    result.outcome = 'failed';
    result.problems.push((error as Error).message);
    if (server) result.problems.push(`server output:\n${server.output().slice(-2000)}`);
  } finally {
    await Promise.all(inboxes.map((inbox) => inbox.close()));
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}

/** 1,000 remote profiles, 20 per instance, each with its personal and the instance's shared inbox, as approved members. */
async function seedRemoteMembers(
  databaseUrl: string,
  groupId: string,
  inboxes: LoopbackInbox[],
): Promise<void> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  try {
    const origins = inboxes.map((inbox) => inbox.origin);
    await sequelize.query(
      `WITH made AS (
         INSERT INTO actors (type, username, domain, uri, url, display_name, inbox_url, shared_inbox_url)
         SELECT 'Person', 'm' || i, substr(o, 8), o || '/users/m' || i, o || '/@m' || i, 'Member ' || i,
                o || '/users/m' || i || '/inbox', o || '/inbox'
           FROM generate_series(0, $1 - 1) AS i, LATERAL (SELECT ($2::text[])[1 + i % array_length($2::text[], 1)] AS o) x
         RETURNING id)
       INSERT INTO members (uuid, url, parent_id, actor_id, role)
       SELECT u, 'https://bench.example/member/' || u, $3, id, 'MEMBER'
         FROM (SELECT id, gen_random_uuid() AS u FROM made) g`,
      { bind: [GROUP_DELIVERY_MEMBERS, origins, groupId] },
    );
  } finally {
    await sequelize.close();
  }
}

async function graphQL<T>(
  baseUrl: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  const answer = (await postGraphQL(baseUrl, query, token, variables)) as { data?: T; errors?: unknown };
  if (!answer.data || answer.errors) throw new Error(`GraphQL: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.data;
}

async function fetchKey(keyId: string): Promise<ResolvedKey | null> {
  const response = await fetch(keyId.split('#')[0]!, { headers: { accept: 'application/activity+json' } });
  if (!response.ok) return null;
  const document = (await response.json()) as { id?: string; publicKey?: { publicKeyPem?: string } };
  const pem = document.publicKey?.publicKeyPem;
  return pem && document.id ? { publicKeyPem: pem, owner: document.id } : null;
}
