import { expect } from 'chai';
import {
  RECOVERY_CODE_COUNT,
  consumeRecoveryCode,
  generateRecoveryCodes,
  hashRecoveryCode,
  normalizeRecoveryCode,
} from './recovery-codes.js';

describe('recovery codes', () => {
  it('generates exactly ten distinct codes shaped xxxxx-xxxxx', () => {
    const codes = generateRecoveryCodes();
    expect(RECOVERY_CODE_COUNT).to.equal(10);
    expect(codes).to.have.length(10);
    expect(new Set(codes).size).to.equal(10);
    for (const code of codes) expect(code).to.match(/^[0-9a-f]{5}-[0-9a-f]{5}$/);
    expect(generateRecoveryCodes()).not.to.have.members(codes);
  });

  it('stores hashes, not codes', () => {
    const [code] = generateRecoveryCodes();
    const hash = hashRecoveryCode(code!);
    expect(hash).to.match(/^[0-9a-f]{64}$/);
    expect(hash).not.to.include(code!.replace('-', ''));
  });

  it('lets each code work once and refuses a wrong one', () => {
    const codes = generateRecoveryCodes();
    let stored = codes.map(hashRecoveryCode);
    for (const code of codes) {
      const use = consumeRecoveryCode(stored, code);
      if (!use.ok) expect.fail(`code ${code} was refused`);
      expect(use.remaining).to.have.length(stored.length - 1);
      expect(consumeRecoveryCode(use.remaining, code)).to.deep.equal({ ok: false });
      stored = use.remaining;
    }
    expect(stored).to.deep.equal([]);
    const fresh = generateRecoveryCodes().map(hashRecoveryCode);
    expect(consumeRecoveryCode(fresh, '00000-00000')).to.deep.equal({ ok: false });
    expect(consumeRecoveryCode(fresh, 'not a code')).to.deep.equal({ ok: false });
    expect(consumeRecoveryCode(fresh, '')).to.deep.equal({ ok: false });
  });

  it('removes only the code used and keeps the order of the rest', () => {
    const codes = generateRecoveryCodes();
    const stored = codes.map(hashRecoveryCode);
    const use = consumeRecoveryCode(stored, codes[3]!);
    expect(use).to.deep.equal({ ok: true, remaining: stored.filter((_, i) => i !== 3) });
  });

  it('normalizes case, spaces and dashes', () => {
    const [code] = generateRecoveryCodes();
    const plain = code!.replace('-', '');
    const stored = [hashRecoveryCode(code!)];
    for (const typed of [
      plain,
      code!.toUpperCase(),
      ` ${plain.slice(0, 2)} ${plain.slice(2, 7)}-${plain.slice(7)} `,
      `${plain.slice(0, 5)}\u2013${plain.slice(5)}`,
    ]) {
      expect(consumeRecoveryCode(stored, typed).ok, typed).to.equal(true);
    }
    expect(normalizeRecoveryCode('ABCDE-12345')).to.equal('abcde12345');
    expect(normalizeRecoveryCode('abcde-1234')).to.equal(null);
    expect(normalizeRecoveryCode('ghijk-12345')).to.equal(null);
  });

  it('ignores malformed stored entries instead of failing', () => {
    const [code] = generateRecoveryCodes();
    const use = consumeRecoveryCode(['', 'zz', hashRecoveryCode(code!)], code!);
    expect(use).to.deep.equal({ ok: true, remaining: ['', 'zz'] });
  });
});
