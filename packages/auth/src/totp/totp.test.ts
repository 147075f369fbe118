import { expect } from 'chai';
import { URI } from 'otpauth';
import { createTotpEnrollment, totpCode, totpStep, verifyTotp } from './totp.js';

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890" in base32.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const NOW = new Date('2026-11-22T04:00:10Z');
const at = (stepsFromNow: number): Date => new Date(NOW.getTime() + stepsFromNow * 30_000);

describe('TOTP', () => {
  it('computes the codes authenticator apps show (RFC 6238 SHA-1 vectors, 6 digits)', () => {
    expect(totpCode(RFC_SECRET, { now: new Date(59_000) })).to.equal('287082');
    expect(totpCode(RFC_SECRET, { now: new Date(1_111_111_109_000) })).to.equal('081804');
    expect(totpCode(RFC_SECRET, { now: new Date(1_234_567_890_000) })).to.equal('005924');
  });

  it('enrolls with a fresh base32 secret and a URI carrying issuer and account', () => {
    const first = createTotpEnrollment({ issuer: 'Agora Events', accountName: 'ada@example.org' });
    const second = createTotpEnrollment({ issuer: 'Agora Events', accountName: 'ada@example.org' });
    expect(first.secret).to.match(/^[A-Z2-7]{32}$/);
    expect(first.secret).not.to.equal(second.secret);
    expect(first.uri).to.match(/^otpauth:\/\/totp\/Agora%20Events:ada%40example\.org\?/);
    const parsed = URI.parse(first.uri);
    expect(parsed.issuer).to.equal('Agora Events');
    expect(parsed.label).to.equal('ada@example.org');
    expect(parsed.secret.base32).to.equal(first.secret);
    expect(first.uri).to.include('algorithm=SHA1').and.include('digits=6').and.include('period=30');
  });

  it('accepts the current code and returns its step', () => {
    const { secret } = createTotpEnrollment({ issuer: 'Agora', accountName: 'ada' });
    expect(verifyTotp(secret, totpCode(secret, { now: NOW }), { now: NOW })).to.deep.equal({
      ok: true,
      step: totpStep(NOW),
    });
  });

  it('accepts one step of drift either way and refuses two', () => {
    const { secret } = createTotpEnrollment({ issuer: 'Agora', accountName: 'ada' });
    for (const drift of [-1, 1]) {
      expect(verifyTotp(secret, totpCode(secret, { now: at(drift) }), { now: NOW })).to.deep.equal({
        ok: true,
        step: totpStep(NOW) + drift,
      });
    }
    for (const drift of [-2, 2]) {
      expect(verifyTotp(secret, totpCode(secret, { now: at(drift) }), { now: NOW })).to.deep.equal({
        ok: false,
        step: null,
      });
    }
  });

  it('refuses a replay of an already used step, and earlier steps', () => {
    const { secret } = createTotpEnrollment({ issuer: 'Agora', accountName: 'ada' });
    const code = totpCode(secret, { now: NOW });
    const first = verifyTotp(secret, code, { now: NOW });
    expect(first.ok).to.equal(true);
    expect(verifyTotp(secret, code, { now: NOW, lastUsedStep: first.step })).to.deep.equal({
      ok: false,
      step: null,
    });
    // The previous step's code is within drift but older than the one already used.
    expect(
      verifyTotp(secret, totpCode(secret, { now: at(-1) }), { now: NOW, lastUsedStep: first.step }).ok,
    ).to.equal(false);
    // The next step's code is still fine.
    expect(
      verifyTotp(secret, totpCode(secret, { now: at(1) }), { now: NOW, lastUsedStep: first.step }),
    ).to.deep.equal({ ok: true, step: totpStep(NOW) + 1 });
  });

  it("refuses a code from another secret and anything that isn't six digits", () => {
    // Two fixed secrets whose codes around NOW are known to differ, so the check is deterministic.
    const theirs = 'JBSWY3DPEHPK3PXP';
    expect(verifyTotp(theirs, totpCode(theirs, { now: NOW }), { now: NOW }).ok).to.equal(true);
    expect(verifyTotp(RFC_SECRET, totpCode(theirs, { now: NOW }), { now: NOW })).to.deep.equal({
      ok: false,
      step: null,
    });
    for (const bad of ['', '12345', '1234567', 'abcdef', '１２３４５６', '12345é']) {
      expect(verifyTotp(RFC_SECRET, bad, { now: NOW })).to.deep.equal({ ok: false, step: null });
    }
  });

  it('tolerates the space apps put in the middle of a code', () => {
    const { secret } = createTotpEnrollment({ issuer: 'Agora', accountName: 'ada' });
    const code = totpCode(secret, { now: NOW });
    expect(verifyTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, { now: NOW }).ok).to.equal(true);
  });
});
