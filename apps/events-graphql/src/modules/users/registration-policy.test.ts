import { expect } from 'chai';
import { registrationRefusal } from './registration-policy.js';

describe('registration policy', () => {
  const closed = { open: false, allowlist: [], denylist: [] };

  it('refuses everyone when closed without an allowlist', () => {
    expect(registrationRefusal(closed, 'a@example.org')).to.equal('Registrations are not open');
  });

  it('lets listed emails and domains in when closed, plus-addressing included', () => {
    const policy = { ...closed, allowlist: ['friend@example.org', 'team.example'] };
    expect(registrationRefusal(policy, 'Friend+events@Example.org')).to.equal(undefined);
    expect(registrationRefusal(policy, 'anyone@TEAM.example')).to.equal(undefined);
    expect(registrationRefusal(policy, 'other@example.org')).to.equal('Your email is not on the allowlist');
  });

  it('refuses denied emails and domains even when open', () => {
    const policy = { open: true, allowlist: [], denylist: ['@spam.example', 'troll@example.org'] };
    const denied = 'Your e-mail has been denied registration or uses a disallowed e-mail provider';
    expect(registrationRefusal(policy, 'x@spam.example')).to.equal(denied);
    expect(registrationRefusal(policy, 'troll+again@example.org')).to.equal(denied);
    expect(registrationRefusal(policy, 'fine@example.org')).to.equal(undefined);
  });
});
