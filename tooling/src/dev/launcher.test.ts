import { expect } from 'chai';
import { readableLogLine } from './launcher.js';

describe('launcher output', () => {
  it('shows a service’s JSON log line as time, level, message and the remaining fields', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 10, 22, 9, 5, 7),
      service: 'events',
      name: 'events',
      msg: 'slow query',
      ms: 812,
    });
    expect(readableLogLine(line)).to.equal('09:05:07 warn  slow query {"ms":812}');
  });

  it('passes other lines through unchanged', () => {
    expect(readableLogLine('Invalid configuration:')).to.equal('Invalid configuration:');
    expect(readableLogLine('{not json')).to.equal('{not json');
  });
});
