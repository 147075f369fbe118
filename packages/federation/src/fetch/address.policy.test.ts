import { expect } from 'chai';
import { forbiddenRange, PrivateHostAllowList } from './address.policy.js';

describe('SSRF address policy', () => {
  const refused = [
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1', // IPv4-mapped
    '::ffff:7f00:1',
    '::ffff:a00:1', // mapped 10.0.0.1
    '::127.0.0.1', // IPv4-compatible
    '::a9fe:a9fe', // compatible 169.254.169.254
    '::ffff:0:7f00:1', // IPv4-translated 127.0.0.1
    '64:ff9b::8.8.8.8', // NAT64
    '100::1',
    '2001::1', // Teredo
    '2001:db8::1',
    '2002:7f00:1::1', // 6to4
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'not-an-ip',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => {
      expect(forbiddenRange(address)).to.be.a('string');
    });
  }

  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2a01:4f8::1',
  ];
  for (const address of allowed) {
    it(`allows public ${address}`, () => {
      expect(forbiddenRange(address)).to.equal(null);
    });
  }

  it('names the range an address fell in', () => {
    expect(forbiddenRange('169.254.169.254')).to.equal('169.254.0.0/16');
    expect(forbiddenRange('::ffff:10.0.0.1')).to.equal('10.0.0.0/8');
  });

  describe('allow-list', () => {
    const list = new PrivateHostAllowList(['peer.local', '127.0.0.1:4000', '10.9.0.0/16', 'FD00::/8']);

    it('matches host names case-insensitively on any port', () => {
      expect(list.allows('PEER.local.', 80, '192.168.1.5')).to.equal(true);
    });

    it('matches host:port only on that port', () => {
      expect(list.allows('127.0.0.1', 4000, '127.0.0.1')).to.equal(true);
      expect(list.allows('127.0.0.1', 4001, '127.0.0.1')).to.equal(false);
    });

    it('matches CIDRs on the connected address, including the IPv4 inside a mapped IPv6', () => {
      expect(list.allows('a.example', 443, '10.9.3.4')).to.equal(true);
      expect(list.allows('a.example', 443, '::ffff:10.9.3.4')).to.equal(true);
      expect(list.allows('a.example', 443, 'fd00::5')).to.equal(true);
      expect(list.allows('a.example', 443, '10.8.0.1')).to.equal(false);
    });

    it('rejects a malformed CIDR when built', () => {
      expect(() => new PrivateHostAllowList(['10.0.0.0/99'])).to.throw(TypeError);
    });
  });
});
