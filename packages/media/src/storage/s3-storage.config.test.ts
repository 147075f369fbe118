import { expect } from 'chai';
import { ConfigError, loadConfig, type Env } from '@agora/core';
import { z } from 'zod';
import { checkS3StorageEnv, s3StorageEnv, toS3StorageConfig } from './s3-storage.config.js';

// The way an app reads them: spread into its schema, checked in superRefine, shaped in transform.
const schema = z.object(s3StorageEnv()).superRefine(checkS3StorageEnv).transform(toS3StorageConfig);
const read = (env: Env) => loadConfig(schema, env);

const ENABLED = {
  S3_ENABLED: 'true',
  S3_BUCKET: 'agora-media',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
};

describe('S3 storage settings', () => {
  it('keep files on disk unless S3_ENABLED=true, whatever else is set', () => {
    expect(read({})).to.equal(null);
    expect(read({ S3_BUCKET: 'agora-media', S3_ENABLED: 'false' })).to.equal(null);
  });

  it('name every variable S3_ENABLED=true still needs', () => {
    expect(() => read({ S3_ENABLED: 'true' }))
      .to.throw(ConfigError)
      .with.property('issues')
      .that.deep.equals([
        'S3_BUCKET: is required when S3_ENABLED=true',
        'AWS_ACCESS_KEY_ID: is required when S3_ENABLED=true',
        'AWS_SECRET_ACCESS_KEY: is required when S3_ENABLED=true',
      ]);
    expect(() => read({ ...ENABLED, S3_ALIAS_HOST: 'https://files.example' })).to.throw(
      ConfigError,
      /S3_ALIAS_HOST: expected a host name and optional path without a scheme/,
    );
    expect(() => read({ ...ENABLED, S3_ENDPOINT: 'not a url' })).to.throw(ConfigError, /S3_ENDPOINT/);
    expect(() => read({ ...ENABLED, S3_PREFIX: '../up' })).to.throw(ConfigError, /S3_PREFIX/);
  });

  it('read AWS defaults, and path style where an endpoint is given (as Mastodon does)', () => {
    expect(read(ENABLED)).to.deep.include({
      bucket: 'agora-media',
      region: 'us-east-1',
      endpoint: undefined,
      forcePathStyle: false,
      prefix: undefined,
      aliasUrl: undefined,
    });
    expect(
      read({
        ...ENABLED,
        S3_ENDPOINT: 'https://s3.garage.example/',
        S3_REGION: 'garage',
        S3_PREFIX: 'events/',
      }),
    ).to.deep.include({
      endpoint: 'https://s3.garage.example',
      region: 'garage',
      forcePathStyle: true,
      prefix: 'events',
    });
    expect(read({ ...ENABLED, S3_ENDPOINT: 'https://r2.example', S3_FORCE_PATH_STYLE: 'false' })).to.include({
      forcePathStyle: false,
    });
  });

  it('build the alias URL from S3_PROTOCOL and S3_ALIAS_HOST', () => {
    expect(read({ ...ENABLED, S3_ALIAS_HOST: 'files.example/media/' })?.aliasUrl).to.equal(
      'https://files.example/media',
    );
    expect(read({ ...ENABLED, S3_ALIAS_HOST: 'localhost:9000', S3_PROTOCOL: 'http' })?.aliasUrl).to.equal(
      'http://localhost:9000',
    );
  });

  it('hand the keys to the SDK but never print the secret', () => {
    const config = read(ENABLED)!;
    expect(config.credentials.secretAccessKey).to.equal('wJalrXUtnFEMI/K7MDENG');
    const printed = JSON.stringify(config);
    expect(printed).to.include('AKIDEXAMPLE');
    expect(printed).not.to.include('wJalrXUtnFEMI');
  });
});
