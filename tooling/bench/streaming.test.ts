import { expect } from 'chai';
import { formatStreamingLines, streamingVerdict, type StreamingResult } from './streaming.js';
import { latencyFigures } from './uploads.js';

describe('streaming bench', () => {
  const delivery = latencyFigures([12, 20, 31, 88]);

  it('passes only at ≥ 50,000 frames/s with p99 ≤ 100 ms and no frame lost (issue 16)', () => {
    expect(streamingVerdict(52_000, delivery, 0)).to.equal('PASS');
    expect(streamingVerdict(49_999, delivery, 0)).to.equal('BELOW');
    expect(streamingVerdict(52_000, latencyFigures([12, 101]), 0)).to.equal('BELOW');
    expect(streamingVerdict(52_000, delivery, 1)).to.equal('BELOW');
    expect(streamingVerdict(52_000, latencyFigures([]), 0)).to.equal('NOT MEASURED');
  });

  it('prints the rate, the delivery times, the memory per socket, the cap and the verdict', () => {
    const result: StreamingResult = {
      outcome: 'ok',
      problems: [],
      sockets: 5000,
      users: 500,
      posts: 100,
      intervalMs: 100,
      clientThreads: 2,
      framesPerSecond: 50_500,
      framesReceived: 500_000,
      framesExpected: 500_000,
      delivery,
      spread: latencyFigures([0, 5, 9]),
      memory: { rssBeforeMb: 100, rssAfterMb: 150, bytesPerSocket: 10_485.76 },
      cap: { tried: 60, opened: 50, refused: 10 },
      verdict: 'PASS',
      loadAverage: [1.5, 2],
    };
    const lines = formatStreamingLines(result);
    expect(lines[0]).to.equal(
      '5,000 sockets of 500 users on `user`, 100 posts one every 100 ms, clients in 2 worker thread(s); load average 1.5 → 2',
    );
    expect(lines[1]).to.equal('  50,500 frames/s received (500,000 of 500,000 frames)');
    expect(lines[2]).to.contain('p99 88.0 ms');
    expect(lines[3]).to.contain('10 KiB per idle socket');
    expect(lines[4]).to.equal('  one token: 50 of 60 sockets opened, 10 refused (cap 50)');
    expect(lines[5]).to.equal('target: 50,500 frames/s (≥ 50,000), p99 88.0 ms (≤ 100) PASS');
    expect(
      formatStreamingLines({ ...result, delivery: undefined, outcome: 'failed', problems: ['boom'] }),
    ).to.deep.equal(['streaming: failed — boom']);
  });
});
