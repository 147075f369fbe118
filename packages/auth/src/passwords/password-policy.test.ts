import { expect } from 'chai';
import { BadInput } from '@agora/core';
import { PASSWORD_MAX_LENGTH, validatePassword } from './password-policy.js';

const TOO_SHORT =
  'The password you have chosen is too short. Please make sure your password contains at least 6 characters.';

function refusal(password: string): BadInput {
  try {
    validatePassword(password);
  } catch (error) {
    expect(error).to.be.instanceOf(BadInput);
    return error as BadInput;
  }
  expect.fail('the password was accepted');
}

describe('password policy', () => {
  it('refuses fewer than 6 characters with the reference message on field password', () => {
    const error = refusal('abcde');
    expect(error.message).to.equal(TOO_SHORT);
    expect(error.fields).to.deep.equal({ password: [TOO_SHORT] });
    expect(error.status).to.equal(422);
    expect(refusal('').message).to.equal(TOO_SHORT);
  });

  it('counts code points, not UTF-16 units', () => {
    // Five code points, six UTF-16 units: still too short.
    expect(refusal('abc😀d').message).to.equal(TOO_SHORT);
    expect(() => validatePassword('abc😀de')).not.to.throw();
    expect(() => validatePassword('😀😀😀😀😀😀')).not.to.throw();
  });

  it('accepts exactly 6 and exactly the maximum', () => {
    expect(() => validatePassword('abcdef')).not.to.throw();
    expect(() => validatePassword('x'.repeat(PASSWORD_MAX_LENGTH))).not.to.throw();
  });

  it('refuses absurdly long input on field password', () => {
    const error = refusal('x'.repeat(PASSWORD_MAX_LENGTH + 1));
    expect(error.message).to.match(/too long/);
    expect(error.fields).to.deep.equal({ password: [error.message] });
    expect(refusal('😀'.repeat(PASSWORD_MAX_LENGTH + 1)).message).to.match(/too long/);
    expect(refusal('x'.repeat(10_000_000)).message).to.match(/too long/);
  });

  it('never puts the password into the error', () => {
    const error = refusal('s3cr!');
    expect(JSON.stringify({ message: error.message, fields: error.fields })).not.to.include('s3cr!');
  });
});
