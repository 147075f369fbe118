import { expect } from 'chai';
import { emailSubject, ipSubject, tokenSubject, userSubject } from './rate-limit.subjects.js';

describe('rate-limit subjects', () => {
  it('writes IPv4 canonically and unwraps IPv4-mapped IPv6 in both spellings', () => {
    expect(ipSubject('203.0.113.7')).to.equal('ip:203.0.113.7');
    expect(ipSubject('::ffff:203.0.113.7')).to.equal('ip:203.0.113.7');
    expect(ipSubject('::FFFF:cb00:7107')).to.equal('ip:203.0.113.7');
    expect(ipSubject('0:0:0:0:0:ffff:cb00:7107')).to.equal('ip:203.0.113.7');
  });

  it('keys IPv6 by its /64 whatever the spelling, and keeps embedded IPv4 of other prefixes as IPv6', () => {
    const subject = 'ip:2001:db8:0:a::/64';
    expect(ipSubject('2001:db8:0:a::1')).to.equal(subject);
    expect(ipSubject('2001:0DB8:0000:000a:ffff:ffff:ffff:ffff')).to.equal(subject);
    expect(ipSubject('2001:db8::a:1:2:3:4')).to.equal(subject);
    expect(ipSubject('2001:db8:0:a::1%en0')).to.equal(subject);
    expect(ipSubject('2001:db8:0:b::1')).to.not.equal(subject);
    expect(ipSubject('64:ff9b::203.0.113.7')).to.equal('ip:64:ff9b:0:0::/64');
    expect(ipSubject('::1')).to.equal('ip:0:0:0:0::/64');
  });

  it('refuses what is not an IP address', () => {
    for (const bad of ['', 'localhost', '1.2.3', '2001:db8::g', '::ffff:1.2.3.4.5']) {
      expect(() => ipSubject(bad), bad).to.throw(TypeError);
    }
  });

  it('folds e-mail case, spaces and plus tags, and stores no address', () => {
    const subject = emailSubject('alice@example.org');
    expect(emailSubject('  Alice+News@EXAMPLE.org ')).to.equal(subject);
    expect(emailSubject('alice+a+b@example.org')).to.equal(subject);
    expect(emailSubject('alice@example.com')).to.not.equal(subject);
    expect(emailSubject('bob+@example.org')).to.equal(emailSubject('bob@example.org'));
    expect(subject).to.match(/^email:[A-Za-z0-9_-]{22}$/);
    expect(() => emailSubject('   ')).to.throw(TypeError);
  });

  it('takes ids, not secrets, for users and tokens', () => {
    expect(userSubject(42)).to.equal('user:42');
    expect(userSubject(12345678901234567890n)).to.equal('user:12345678901234567890');
    expect(tokenSubject('9b2f4c1e-7a3d-4d1b-8f0e-2a6c5d4e3f21')).to.equal(
      'token:9b2f4c1e-7a3d-4d1b-8f0e-2a6c5d4e3f21',
    );
    const accessToken = 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy';
    expect(() => tokenSubject(accessToken)).to.throw(TypeError);
    expect(() => userSubject('')).to.throw(TypeError);
    expect(() => userSubject('a:b')).to.throw(TypeError);
  });
});
