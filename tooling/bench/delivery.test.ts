import { expect } from 'chai';
import {
  DELIVERY_INSTANCES,
  deliveryProblems,
  deliveryVerdict,
  formatDeliveryLines,
  type DeliveryResult,
} from './delivery.js';
import { startInboxServers, type InboxStats } from './inbox-servers.js';
import { cpuBetween, processCpuSeconds } from './process-cpu.js';
import { latencyFigures } from './uploads.js';

describe('delivery bench', () => {
  it('passes only at ≥ 0.8 of the signing ceiling with one POST per shared inbox each time (issue 16)', () => {
    expect(deliveryVerdict(0.85, 0)).to.equal('PASS');
    expect(deliveryVerdict(0.79, 0)).to.equal('BELOW');
    expect(deliveryVerdict(0.95, 1)).to.equal('BELOW');
    expect(deliveryVerdict(undefined, 0)).to.equal('NOT MEASURED');
  });

  it('finds refused signatures, missing instances and second POSTs of a status', () => {
    const full = { instances: DELIVERY_INSTANCES, posts: DELIVERY_INSTANCES, lastAt: 1 };
    const stats: InboxStats = {
      posts: [],
      refused: 0,
      reasons: [],
      activities: { a: full, b: full },
    };
    expect(deliveryProblems(stats, 2)).to.deep.equal([]);
    const broken: InboxStats = {
      ...stats,
      refused: 2,
      reasons: ['bad_signature: x'],
      activities: { a: { ...full, instances: 49, posts: 49 }, b: { ...full, posts: 51 } },
    };
    expect(deliveryProblems(broken, 3)).to.deep.equal([
      '2 POST(s) refused by the signature check: bad_signature: x',
      '2 activities arrived for 3 statuses',
      '1 status(es) did not reach every instance',
      '1 status(es) were POSTed more than once to an instance',
    ]);
  });

  it('prints the ceiling, the delivered rate, the ratio and the verdict', () => {
    const result: DeliveryResult = {
      outcome: 'ok',
      problems: [],
      instances: 50,
      followers: 1000,
      statuses: 100,
      deliveries: 5000,
      deliveriesPerSecond: 900,
      ceiling: 1000,
      ceilingSamples: [990, 1000],
      ratio: 0.9,
      latency: latencyFigures([40, 60, 80]),
      verdict: 'PASS',
      loadAverage: [1, 1.5],
    };
    const lines = formatDeliveryLines(result);
    expect(lines[0]).to.equal(
      '100 public statuses by an author with 1,000 remote followers on 50 instances: 5,000 signed POSTs verified; load average 1 → 1.5',
    );
    expect(lines[2]).to.contain('delivered 900 signed POSTs/s');
    expect(lines[3]).to.equal(
      'target: 0.90 of the signing ceiling (≥ 0.8), one POST per shared inbox each time PASS',
    );
    // The posting clients' own bound is printed beside the figure, so a run shows what limited it.
    const bounded = formatDeliveryLines({ ...result, post: latencyFigures([200]), postingBound: 4 });
    expect(bounded[3]).to.equal(
      '  the posting clients alone could feed 4.00 of the ceiling (16 ÷ POST p50 × 50 instances)',
    );
    expect(bounded[4]).to.match(/^target: 0\.90 /);
    // Where the cores went in the window, per status of each process, before the verdict.
    const cpu = { server: 3, database: 1.5, instances: 1, bench: 0.5, seconds: 4, cores: 2 };
    const measured = formatDeliveryLines({ ...result, cpu });
    expect(measured[3]).to.equal(
      '  CPU per status: server 30.0 ms, database 15.0 ms, instances 10.0 ms, bench 5.0 ms = 60.0 ms (1.50 cores busy over 4.0 s)',
    );
    // 45 ms of server and database per status: 2 cores give 44.4 statuses/s, 2,222 POSTs/s.
    expect(measured[4]).to.equal(
      '  the server and its database alone (45.0 ms per status) could deliver 2222 signed POSTs/s on 2 cores = 2.22 of the ceiling (the instances and the bench share those cores here)',
    );
    expect(measured[5]).to.match(/^target: 0\.90 /);
    expect(
      formatDeliveryLines({ ...result, ratio: undefined, outcome: 'failed', problems: ['boom'] }),
    ).to.deep.equal(['delivery: failed — boom']);
  });

  it("reads a process's CPU time from /proc and sums a set of processes between two samples", async () => {
    const before = await processCpuSeconds(process.pid);
    expect(before).to.be.a('number');
    // Spin until this process has used 300 ms more of CPU by its own count; /proc must see it too.
    const start = process.cpuUsage();
    for (;;) {
      const used = process.cpuUsage(start);
      if (used.user + used.system >= 300_000) break;
    }
    const after = await processCpuSeconds(process.pid);
    expect(after! - before!).to.be.within(0.25, 5);
    expect(await processCpuSeconds(2 ** 31 - 1)).to.equal(undefined);
    expect(await processCpuSeconds(undefined)).to.equal(undefined);
    // Pid 2 ended in between (left out), pid 3 started (counted from zero).
    const first = new Map([
      [1, 2],
      [2, 5],
    ]);
    const second = new Map([
      [1, 3.5],
      [3, 1],
    ]);
    expect(cpuBetween(first, second)).to.equal(2.5);
  });

  it('runs instances that refuse an unsigned POST and count nothing for it', async () => {
    const inboxes = await startInboxServers(2);
    try {
      expect(inboxes.origins).to.have.length(2);
      expect(await processCpuSeconds(inboxes.pid)).to.be.a('number');
      const response = await fetch(inboxes.sharedInbox(1), {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify({ id: 'https://x.test/a', type: 'Create' }),
      });
      expect(response.status).to.equal(401);
      const stats = await inboxes.stats();
      expect(stats.refused).to.equal(1);
      expect(stats.posts).to.deep.equal([0, 0]);
      expect(stats.activities).to.deep.equal({});
      await inboxes.reset();
      expect((await inboxes.stats()).refused).to.equal(0);
    } finally {
      await inboxes.stop();
    }
  });
});
