import { expect } from 'chai';
import { findService, redactConfig, serviceEnv } from './services.js';

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
});
