import { expect } from 'chai';
import { isRole, roleSatisfies } from './roles.js';

describe('instance roles', () => {
  it('orders USER below MODERATOR below ADMINISTRATOR', () => {
    expect(roleSatisfies('ADMINISTRATOR', 'MODERATOR')).to.equal(true);
    expect(roleSatisfies('MODERATOR', 'USER')).to.equal(true);
    expect(roleSatisfies('MODERATOR', 'ADMINISTRATOR')).to.equal(false);
    expect(roleSatisfies('USER', 'MODERATOR')).to.equal(false);
  });

  it('recognises only the three role names', () => {
    expect(isRole('MODERATOR')).to.equal(true);
    expect(isRole('moderator')).to.equal(false);
    expect(isRole('ROOT')).to.equal(false);
  });
});
