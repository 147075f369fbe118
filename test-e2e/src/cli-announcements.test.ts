import { expect } from 'chai';
import pg from 'pg';
import { createTestDatabase } from '@agora/db/testing';
import { runScript, templates } from './processes.js';

const CLI = 'tooling/src/cli/cli.ts';

// Issue 15 §8: announcements are admin-written, as Mastodon's; the admin tool is where they are written.
describe('pnpm agora announcements:*', function () {
  this.timeout(120_000);

  it('writes, lists, publishes, unpublishes and deletes announcements; refuses bad input plainly', async () => {
    const db = await createTestDatabase('e2e_cli_announcements', templates.microblog);
    const env = { MICROBLOG_DATABASE_URL: db.url };
    const agora = async (...args: string[]) => {
      const run = runScript(CLI, [...args, '--service', 'microblog'], env);
      return { code: await run.exited, output: run.output() };
    };
    try {
      const created = await agora('announcements:create', '--text', 'Maintenance at 22:00 #ops');
      expect(created.code, created.output).to.equal(0);
      const id = created.output.split('  ')[0]!;
      expect(id).to.match(/^\d+$/);
      expect(created.output).to.contain('published').and.contain('"Maintenance at 22:00 #ops"');

      const draft = await agora(
        'announcements:create',
        '--text',
        'Meetup',
        '--starts-at',
        '2030-01-01',
        '--ends-at',
        '2030-01-02',
        '--all-day',
        '--draft',
      );
      expect(draft.code, draft.output).to.equal(0);
      const draftId = draft.output.split('  ')[0]!;
      expect(draft.output)
        .to.contain('draft')
        .and.contain('2030-01-01T00:00:00.000Z')
        .and.contain('(all day)');

      const listed = await agora('announcements:list');
      expect(
        listed.output
          .trim()
          .split('\n')
          .map((line) => line.split('  ')[0]),
      ).to.deep.equal([draftId, id]);

      expect((await agora('announcements:publish', '--id', draftId)).code).to.equal(0);
      expect((await agora('announcements:unpublish', '--id', id)).code).to.equal(0);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT id::text, content, published_at IS NOT NULL AS published FROM announcements ORDER BY id',
        );
        expect(rows).to.have.length(2);
        expect(rows[0]).to.include({ id, published: false });
        expect(rows[0].content).to.contain('class="mention hashtag"');
        expect(rows[1]).to.include({ id: draftId, published: true });
      } finally {
        await client.end();
      }

      expect((await agora('announcements:delete', '--id', id)).code).to.equal(0);
      const missing = await agora('announcements:delete', '--id', id);
      expect(missing.code).to.equal(1);
      expect(missing.output)
        .to.contain('Record not found')
        .and.not.match(/\n\s+at /);
      const blank = await agora('announcements:create', '--text', '   ');
      expect(blank.code).to.equal(2);
      expect(blank.output).to.contain('needs --text');
      const badDate = await agora('announcements:create', '--text', 'x', '--starts-at', 'tomorrow');
      expect(badDate.code).to.equal(2);
      expect(badDate.output).to.contain('--starts-at must be a date');
      const backwards = await agora(
        'announcements:create',
        '--text',
        'x',
        '--starts-at',
        '2030-01-02',
        '--ends-at',
        '2030-01-01',
      );
      expect(backwards.code).to.equal(1);
      expect(backwards.output).to.contain('ends_at must be after starts_at');
    } finally {
      await db.drop();
    }
  });
});
