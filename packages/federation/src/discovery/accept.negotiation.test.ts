import { expect } from 'chai';
import { parseAccept, wantsActivityPub } from './accept.negotiation.js';

describe('Accept negotiation for ActivityPub documents', () => {
  it('serves AP to what fediverse servers send', () => {
    expect(wantsActivityPub('application/activity+json')).to.equal(true);
    expect(wantsActivityPub('application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).to.equal(
      true,
    );
    expect(wantsActivityPub('application/ld+json')).to.equal(true);
    expect(
      wantsActivityPub(
        'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
      ),
    ).to.equal(true);
  });

  it('leaves browsers, wildcards and other profiles to the HTML page', () => {
    expect(wantsActivityPub(undefined)).to.equal(false);
    expect(wantsActivityPub('*/*')).to.equal(false);
    expect(wantsActivityPub('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).to.equal(
      false,
    );
    expect(wantsActivityPub('application/json')).to.equal(false);
    expect(wantsActivityPub('application/ld+json; profile="https://example.org/other"')).to.equal(false);
  });

  it('weighs q-values against text/html', () => {
    expect(wantsActivityPub('text/html, application/activity+json;q=0.9')).to.equal(false);
    expect(wantsActivityPub('text/html;q=0.5, application/activity+json')).to.equal(true);
    expect(wantsActivityPub('application/activity+json;q=0')).to.equal(false);
  });

  it('keeps quoted parameters whole, commas included', () => {
    expect(parseAccept('application/ld+json; profile="a, b"; q=0.5, text/html')).to.deep.equal([
      { type: 'application/ld+json', params: { profile: 'a, b' }, q: 0.5 },
      { type: 'text/html', params: {}, q: 1 },
    ]);
  });
});
