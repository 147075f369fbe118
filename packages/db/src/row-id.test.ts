import { expect } from 'chai';
import { isRowId } from './row-id.js';

describe('isRowId', () => {
  it('accepts the ids a bigint primary key can hold, and nothing else', () => {
    for (const id of ['1', '42', '9223372036854775807']) expect(isRowId(id), id).to.equal(true);
    for (const id of ['', '-1', '1.5', ' 1', '0x10', 'abc', '9223372036854775808', '12345678901234567890']) {
      expect(isRowId(id), JSON.stringify(id)).to.equal(false);
    }
  });
});
