import { expect } from 'chai';
import { parseScopes, scopesAllow, scopesWithin } from './scopes.js';

describe('OAuth scopes', () => {
  it('parses a space-separated list, de-duplicates and reports unknown scopes', () => {
    expect(parseScopes('read write:statuses read bogus')).to.deep.equal({
      scopes: ['read', 'write:statuses'],
      unknown: ['bogus'],
    });
    expect(parseScopes(undefined)).to.deep.equal({ scopes: [], unknown: [] });
  });

  it('lets a top-level scope grant its granular scopes, not the other way round', () => {
    expect(scopesAllow(['read'], ['read:statuses'])).to.equal(true);
    expect(scopesAllow(['read:statuses'], ['read'])).to.equal(false);
    expect(scopesAllow(['read'], ['write:statuses'])).to.equal(false);
    expect(scopesAllow(['admin:read'], ['admin:read:accounts'])).to.equal(true);
    expect(scopesAllow(['read'], ['admin:read:accounts'])).to.equal(false);
  });

  it('keeps the legacy follow scope meaning follows, blocks and mutes', () => {
    expect(scopesAllow(['follow'], ['write:follows'])).to.equal(true);
    expect(scopesAllow(['follow'], ['read:mutes'])).to.equal(true);
    expect(scopesAllow(['follow'], ['read:statuses'])).to.equal(false);
  });

  it('accepts any one of several required scopes', () => {
    expect(scopesAllow(['profile'], ['read:accounts', 'profile'])).to.equal(true);
  });

  it('checks requested scopes against an app registration', () => {
    expect(scopesWithin(['read:statuses', 'write:media'], ['read', 'write'])).to.equal(true);
    expect(scopesWithin(['read', 'push'], ['read', 'write'])).to.equal(false);
  });
});
