import { expect } from 'chai';
import { FetchNetworkError, FetchRefusedError, FetchTimeoutError } from '../fetch/index.js';
import { DEFAULT_TIMING, outcomeOfError, outcomeOfStatus, retryDelaySeconds } from './delivery.policy.js';

describe('delivery policy', () => {
  it('retries 16 times over about 2.4 to 2.8 days before giving up', () => {
    const span = (random: () => number): number => {
      let total = 0;
      for (let attempt = 1; attempt < DEFAULT_TIMING.maxAttempts; attempt += 1) {
        total += retryDelaySeconds(DEFAULT_TIMING, attempt, random);
      }
      return total / 86_400;
    };
    expect(DEFAULT_TIMING.maxAttempts - 1).to.be.at.least(16);
    expect(retryDelaySeconds(DEFAULT_TIMING, 1, () => 0)).to.equal(30);
    expect(span(() => 0)).to.be.within(2.3, 2.5);
    expect(span(() => 0.999)).to.be.within(2.7, 2.9);
  });

  it('ends at once on unsalvageable 4xx answers but retries 408, 429, 5xx and network failures', () => {
    for (const status of [400, 401, 403, 404, 405, 406, 410, 413, 422]) {
      expect(outcomeOfStatus(status).kind, String(status)).to.equal('rejected');
    }
    for (const status of [408, 429, 500, 502, 503, 504, 302]) {
      expect(outcomeOfStatus(status).kind, String(status)).to.equal('failed');
    }
    expect(outcomeOfStatus(202).kind).to.equal('delivered');
    expect(outcomeOfError(new FetchTimeoutError(10_000, 'https://remote.test/inbox')).kind).to.equal(
      'failed',
    );
    expect(outcomeOfError(new FetchNetworkError('ECONNREFUSED', 'https://remote.test/inbox')).kind).to.equal(
      'failed',
    );
    expect(outcomeOfError(new FetchRefusedError('private_address', 'https://10.0.0.1/inbox')).kind).to.equal(
      'rejected',
    );
  });
});
