import { expect } from 'chai';
import { findService, redactConfig, serviceEnv, services, sharedDatabaseProblem } from './services.js';

describe('service environments', () => {
  it('gives each service its own prefixed variables and drops the other service’s', () => {
    const env = { EVENTS_PORT: '4100', MICROBLOG_PORT: '3100', LOG_LEVEL: 'warn', PORT: '9999' };
    expect(serviceEnv(findService('events'), env)).to.deep.equal({ PORT: '4100', LOG_LEVEL: 'warn' });
    expect(serviceEnv(findService('microblog'), env)).to.deep.equal({ PORT: '3100', LOG_LEVEL: 'warn' });
  });

  it('rejects an unknown service name', () => {
    expect(() => findService('wiki')).to.throw(/unknown service "wiki"/);
  });

  it('masks passwords when a config is shown', () => {
    const config = findService('microblog').loadConfig({
      DATABASE_URL: 'postgres://agora:s3cret@db.example:5432/agora',
      SMTP_URL: 'smtp://mailer:hunter2@smtp.example:587',
    });
    const shown = JSON.stringify(redactConfig(config));
    expect(shown).not.to.contain('s3cret');
    expect(shown).not.to.contain('hunter2');
    expect(shown).to.contain('db.example');
  });

  it('refuses one database for both services (an unprefixed DATABASE_URL), naming the way out', () => {
    const shared = sharedDatabaseProblem(services, { DATABASE_URL: 'postgres://db.example/agora' });
    expect(shared)
      .to.match(/would share one database/)
      .and.to.contain('EVENTS_DATABASE_URL');
    // The same database written two ways is still one.
    expect(
      sharedDatabaseProblem(services, {
        EVENTS_DATABASE_URL: 'postgres://DB.example:5432/agora',
        MICROBLOG_DATABASE_URL: 'postgres://u:p@db.example/agora',
      }),
    ).to.be.a('string');
    expect(
      sharedDatabaseProblem(services, {
        EVENTS_DATABASE_URL: 'postgres://db.example/agora_events',
        MICROBLOG_DATABASE_URL: 'postgres://db.example/agora_microblog',
      }),
    ).to.equal(undefined);
    // One service alone may use it; none set: the embedded cluster gives each its own.
    expect(
      sharedDatabaseProblem([findService('events')], { DATABASE_URL: 'postgres://db.example/agora' }),
    ).to.equal(undefined);
    expect(sharedDatabaseProblem(services, {})).to.equal(undefined);
  });
});
