import { expect } from 'chai';
import pg from 'pg';
import { createTestDatabase } from '@agora/db/testing';
import { CHEAP_PASSWORDS, runScript, templates } from './processes.js';

const CLI = 'tooling/src/cli/cli.ts';

describe('pnpm agora (admin command-line tool)', function () {
  this.timeout(120_000);

  it('migrate applies each service’s migrations once, then reports it is up to date', async () => {
    const eventsDb = await createTestDatabase('e2e_cli_events');
    const microblogDb = await createTestDatabase('e2e_cli_microblog');
    const env = { EVENTS_DATABASE_URL: eventsDb.url, MICROBLOG_DATABASE_URL: microblogDb.url };
    try {
      const first = runScript(CLI, ['migrate'], env);
      expect(await first.exited, first.output()).to.equal(0);
      expect(first.output()).to.match(/events: applied /);
      expect(first.output()).to.match(/microblog: applied /);

      const second = runScript(CLI, ['migrate', '--service', 'events'], env);
      expect(await second.exited, second.output()).to.equal(0);
      expect(second.output().trim()).to.equal('events: up to date');
    } finally {
      await eventsDb.drop();
      await microblogDb.drop();
    }
  });

  it('config:show prints the effective configuration with passwords masked', async () => {
    const run = runScript(CLI, ['config:show', '--service', 'microblog'], {
      MICROBLOG_DATABASE_URL: 'postgres://agora:topsecret@db.internal:5432/agora_microblog',
      MICROBLOG_PORT: '3999',
    });
    expect(await run.exited, run.output()).to.equal(0);
    const shown = JSON.parse(run.output()) as { microblog: { http: { port: number }; db: { url: string } } };
    expect(shown.microblog.http.port).to.equal(3999);
    expect(shown.microblog.db.url).to.contain('db.internal').and.not.contain('topsecret');
  });

  it('refuses an unknown command and a bad configuration with a clear message', async () => {
    const unknown = runScript(CLI, ['frobnicate'], {});
    expect(await unknown.exited).to.equal(2);
    expect(unknown.output()).to.contain('Unknown command "frobnicate"');

    const bad = runScript(CLI, ['config:show', '--service', 'events'], { EVENTS_PORT: 'eighty' });
    expect(await bad.exited).to.equal(1);
    expect(bad.output()).to.contain('Invalid configuration').and.contain('PORT');
    expect(bad.output()).not.to.match(/\n\s+at /); // no stack trace
  });
});

describe('pnpm agora users:create', function () {
  this.timeout(120_000);

  it('creates an account the service then signs in, with the role given; refuses a duplicate', async () => {
    const eventsDb = await createTestDatabase('e2e_cli_users', templates.events);
    const env = { ...CHEAP_PASSWORDS, EVENTS_DATABASE_URL: eventsDb.url };
    try {
      const create = runScript(
        CLI,
        [
          'users:create',
          '--service',
          'events',
          '--email',
          'Admin@Example.ORG',
          '--password',
          'correct horse',
          '--role',
          'administrator',
          '--confirmed',
        ],
        env,
      );
      expect(await create.exited, create.output()).to.equal(0);
      const id = create.output().trim().split('\n')[0];
      expect(id).to.match(/^\d+$/);

      const client = new pg.Client({ connectionString: eventsDb.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT id::text, email, role, confirmed_at IS NOT NULL AS confirmed FROM users',
        );
        expect(rows).to.deep.equal([
          { id, email: 'Admin@example.org', role: 'ADMINISTRATOR', confirmed: true },
        ]);
      } finally {
        await client.end();
      }

      const again = runScript(
        CLI,
        ['users:create', '--service', 'events', '--email', 'admin@example.org', '--password', 'whatever1'],
        env,
      );
      expect(await again.exited).to.equal(1);
      expect(again.output())
        .to.contain('already used')
        .and.not.match(/\n\s+at /);

      const badRole = runScript(
        CLI,
        [
          'users:create',
          '--service',
          'events',
          '--email',
          'x@example.org',
          '--password',
          'whatever1',
          '--role',
          'root',
        ],
        env,
      );
      expect(await badRole.exited).to.equal(2);
      expect(badRole.output()).to.contain('--role must be administrator or moderator');
    } finally {
      await eventsDb.drop();
    }
  });

  it('creates the profile (events) or account (microblog) with --username, and leaves nothing on a taken name', async () => {
    const eventsDb = await createTestDatabase('e2e_cli_profiles_events', templates.events);
    const microblogDb = await createTestDatabase('e2e_cli_profiles_microblog', templates.microblog);
    const env = {
      ...CHEAP_PASSWORDS,
      EVENTS_DATABASE_URL: eventsDb.url,
      MICROBLOG_DATABASE_URL: microblogDb.url,
    };
    const create = (service: string, email: string, username: string) =>
      runScript(
        CLI,
        [
          'users:create',
          '--service',
          service,
          '--email',
          email,
          '--password',
          'correct horse',
          '--username',
          username,
          '--confirmed',
        ],
        env,
      );
    const query = async (url: string, sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Array<Record<string, unknown>>;
      } finally {
        await client.end();
      }
    };
    try {
      const events = create('events', 'ana@example.org', 'ana');
      expect(await events.exited, events.output()).to.equal(0);
      expect(events.output()).to.contain('profile "ana" created');
      expect(
        await query(
          eventsDb.url,
          `SELECT a.username, a.type, d.actor_id = a.id AS is_default
             FROM users u JOIN actors a ON a.user_id = u.id LEFT JOIN user_default_actors d ON d.user_id = u.id`,
        ),
      ).to.deep.equal([{ username: 'ana', type: 'Person', is_default: true }]);

      const microblog = create('microblog', 'ben@example.org', 'ben');
      expect(await microblog.exited, microblog.output()).to.equal(0);
      expect(
        await query(
          microblogDb.url,
          'SELECT a.username, a.uri FROM users u JOIN actors a ON a.user_id = u.id',
        ),
      ).to.have.lengthOf(1);

      const taken = create('microblog', 'other@example.org', 'BEN');
      expect(await taken.exited).to.equal(1);
      expect(taken.output())
        .to.match(/taken/i)
        .and.not.match(/\n\s+at /);
      expect(
        await query(microblogDb.url, "SELECT id FROM users WHERE email = 'other@example.org'"),
      ).to.deep.equal([]);
    } finally {
      await eventsDb.drop();
      await microblogDb.drop();
    }
  });

  it('blocks and unblocks a domain, lists dead letters and refuses to replay an unknown one', async () => {
    const microblogDb = await createTestDatabase('e2e_cli_federation', templates.microblog);
    const env = { MICROBLOG_DATABASE_URL: microblogDb.url };
    const run = (...args: string[]) => runScript(CLI, [...args, '--service', 'microblog'], env);
    try {
      const block = run(
        'domains:block',
        '--domain',
        'Spam.Example',
        '--severity',
        'suspend',
        '--reject-media',
      );
      expect(await block.exited, block.output()).to.equal(0);
      const client = new pg.Client({ connectionString: microblogDb.url });
      await client.connect();
      try {
        const rows = async () =>
          (await client.query('SELECT domain, severity, reject_media FROM domain_blocks')).rows;
        expect(await rows()).to.deep.equal([
          { domain: 'spam.example', severity: 'suspend', reject_media: true },
        ]);
        const badSeverity = run('domains:block', '--domain', 'x.example', '--severity', 'ban');
        expect(await badSeverity.exited).to.equal(2);
        const unblock = run('domains:unblock', '--domain', 'spam.example');
        expect(await unblock.exited, unblock.output()).to.equal(0);
        expect(await rows()).to.deep.equal([]);
      } finally {
        await client.end();
      }
      const dead = run('deliveries:dead');
      expect(await dead.exited, dead.output()).to.equal(0);
      expect(dead.output()).to.contain('no dead letters');
      const replay = run('deliveries:replay', '--id', '12345');
      expect(await replay.exited).to.equal(1);
      expect(replay.output())
        .to.contain('Dead letter not found')
        .and.not.match(/\n\s+at /);
    } finally {
      await microblogDb.drop();
    }
  });
});
