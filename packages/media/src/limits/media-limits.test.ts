import { expect } from 'chai';
import { z } from 'zod';
import { loadConfig } from '@agora/core';
import { DEFAULT_UPLOAD_LIMITS } from './limits.js';
import { mediaLimitsEnv, mediaLimitsFromUploadLimits, toMediaLimits } from './media-limits.js';

describe('media limits', () => {
  it("defaults to Mastodon's 16 MiB images and 99 MiB videos, overridable", () => {
    const schema = z.object(mediaLimitsEnv()).transform(toMediaLimits);
    expect(loadConfig(schema, {})).to.include({ imageBytes: 16_777_216, videoBytes: 103_809_024 });
    expect(loadConfig(schema, { MEDIA_MAX_WIDTH: '1280' }).maxWidth).to.equal(1280);
    expect(() => loadConfig(schema, { MEDIA_VIDEO_LIMIT_BYTES: '0' })).to.throw(/MEDIA_VIDEO_LIMIT_BYTES/);
  });

  it("takes the events service's one upload limit for every attachment", () => {
    expect(mediaLimitsFromUploadLimits(DEFAULT_UPLOAD_LIMITS)).to.include({
      imageBytes: 10_485_760,
      videoBytes: 10_485_760,
      avatarBytes: 2_097_152,
      bannerBytes: 4_194_304,
    });
  });
});
