import { expect } from 'chai';
import { isoInZone } from './event-objects.js';

describe('event documents: times in the event’s time zone (not-shown.md §5, startTime/endTime)', () => {
  it('writes the offset of the zone at that instant, summer and winter time alike', () => {
    expect(isoInZone(new Date('2026-07-01T17:00:00Z'), 'Europe/Paris')).to.equal('2026-07-01T19:00:00+02:00');
    expect(isoInZone(new Date('2026-12-01T17:00:00Z'), 'Europe/Paris')).to.equal('2026-12-01T18:00:00+01:00');
    expect(isoInZone(new Date('2026-12-01T02:30:00Z'), 'America/St_Johns')).to.equal(
      '2026-11-30T23:00:00-03:30',
    );
  });

  it('falls back to UTC without a zone or with one the runtime does not know', () => {
    expect(isoInZone(new Date('2026-12-01T17:00:00.123Z'), null)).to.equal('2026-12-01T17:00:00Z');
    expect(isoInZone(new Date('2026-12-01T17:00:00Z'), 'Mars/Olympus')).to.equal('2026-12-01T17:00:00Z');
  });
});
