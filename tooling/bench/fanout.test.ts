import { expect } from 'chai';
import { fanOutVerdict, formatFanOutLines, type FanOutResult } from './fanout.js';
import { latencyFigures } from './uploads.js';

describe('fan-out bench', () => {
  const post = latencyFigures([12, 20, 31, 44]);
  const fanOut = latencyFigures([150, 180, 240, 320]);

  it('passes only when POST p99 ≤ 50 ms, every fan-out ≤ 1 s and none was lost (issue 15)', () => {
    expect(fanOutVerdict(post, fanOut, 0)).to.equal('PASS');
    expect(fanOutVerdict(latencyFigures([12, 51]), fanOut, 0)).to.equal('BELOW');
    expect(fanOutVerdict(post, latencyFigures([150, 1001]), 0)).to.equal('BELOW');
    expect(fanOutVerdict(post, fanOut, 1)).to.equal('BELOW');
    expect(fanOutVerdict(post, latencyFigures([]), 0)).to.equal('NOT MEASURED');
  });

  it('prints the POST latencies, the fan-out times and the verdict', () => {
    const result: FanOutResult = {
      outcome: 'ok',
      problems: [],
      followers: 10_000,
      posts: 4,
      intervalMs: 250,
      post,
      fanOut,
      verdict: 'PASS',
      loadAverage: [1.5, 2],
    };
    const lines = formatFanOutLines(result);
    expect(lines[0]).to.equal(
      '4 posts, one every 250 ms, by an author with 10,000 local followers; load average 1.5 → 2',
    );
    expect(lines[1]).to.contain('p99 44.0 ms');
    expect(lines[2]).to.contain('max 320.0 ms');
    expect(lines[3]).to.equal('target: POST p99 44.0 ms (≤ 50), fan-out max 320.0 ms (≤ 1000) PASS');
    expect(
      formatFanOutLines({ ...result, post: undefined, outcome: 'failed', problems: ['boom'] }),
    ).to.deep.equal(['fan-out: failed — boom']);
  });
});
