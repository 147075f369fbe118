import { expect } from 'chai';
import { z } from 'zod';
import { BadInput, loadConfig } from '@agora/core';
import { assertUploadSize, DEFAULT_UPLOAD_LIMITS, toUploadLimits, uploadLimitsEnv } from './limits.js';

const schema = z.object(uploadLimitsEnv()).transform(toUploadLimits);

describe('upload limits', () => {
  it('defaults to 10 MiB, 2 MiB for avatars and 4 MiB for banners', () => {
    expect(loadConfig(schema, {})).to.deep.equal(DEFAULT_UPLOAD_LIMITS);
  });

  it('reads overrides and refuses nonsense', () => {
    expect(loadConfig(schema, { AVATAR_UPLOAD_LIMIT_BYTES: '1000' }).avatar).to.equal(1000);
    expect(() => loadConfig(schema, { UPLOAD_LIMIT_BYTES: 'lots' })).to.throw(/UPLOAD_LIMIT_BYTES/);
  });

  it('refuses a file over its kind’s limit with a field error', () => {
    expect(() => assertUploadSize(DEFAULT_UPLOAD_LIMITS, 'avatar', 2_097_152)).not.to.throw();
    try {
      assertUploadSize(DEFAULT_UPLOAD_LIMITS, 'avatar', 2_097_153);
      expect.fail('an oversized avatar was accepted');
    } catch (error) {
      expect(error).to.be.instanceOf(BadInput);
      expect((error as BadInput).fields).to.have.property('file');
    }
  });
});
