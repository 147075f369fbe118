import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { quoteIdentifier, withClient } from '../database.admin.js';
import type { MigrationSet } from '../migrations/migration.runner.js';
import { runMigrations } from '../migrations/migration.runner.js';
import { createSequelize } from '../sequelize.factory.js';
import { createTestDatabase, testServerUrl, type TestDatabase } from './index.js';
import { templateName, type TemplateSpec } from './template-database.js';

function notesSet(checked = false): MigrationSet {
  return {
    owner: '@agora/template-test',
    migrations: [
      {
        name: '20260101000000-notes',
        up: checked
          ? async ({ sequelize }) => {
              await sequelize.query('CREATE TABLE notes (id serial PRIMARY KEY, body text, CHECK (id > 0))');
            }
          : async ({ sequelize }) => {
              await sequelize.query('CREATE TABLE notes (id serial PRIMARY KEY, body text)');
            },
      },
    ],
  };
}

async function templatesOf(family: string): Promise<string[]> {
  return withClient(await testServerUrl(), async (client) => {
    const { rows } = await client.query<{ name: string }>(
      'SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1',
      [`agora_tpl_${family}_`],
    );
    return rows.map((row) => row.name);
  });
}

async function dropTemplates(family: string): Promise<void> {
  const server = await testServerUrl();
  for (const name of await templatesOf(family)) {
    await withClient(server, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
    );
  }
}

describe('template databases', () => {
  // A family of this run only, so nothing another run uses is touched.
  const family = `t${randomBytes(4).toString('hex')}`;
  const databases: TestDatabase[] = [];
  after(async () => {
    await Promise.all(databases.map((db) => db.drop()));
    await dropTemplates(family);
  });

  it('builds one template for many callers at once; each copy has every migration applied', async () => {
    let builds = 0;
    const spec: TemplateSpec = {
      family,
      sets: () => [notesSet()],
      async prepare(url) {
        builds += 1;
        // Rows written into a table the migrations left empty are removed from the template.
        await withClient(url, (client) => client.query("INSERT INTO notes (body) VALUES ('from prepare')"));
      },
    };
    const copies = await Promise.all(Array.from({ length: 6 }, () => createTestDatabase('tpl', spec)));
    databases.push(...copies);
    expect(builds).to.equal(1);
    expect(await templatesOf(family)).to.deep.equal([templateName(spec)]);
    for (const copy of copies) {
      const sequelize = createSequelize({ url: copy.url });
      try {
        expect((await runMigrations(sequelize, spec.sets())).applied).to.deep.equal([]);
        const [rows] = await sequelize.query('SELECT id, body FROM notes');
        expect(rows).to.deep.equal([]);
        // Sequences start afresh too.
        const [[inserted]] = (await sequelize.query(
          "INSERT INTO notes (body) VALUES ('x') RETURNING id",
        )) as [Array<{ id: number }>, unknown];
        expect(inserted!.id).to.equal(1);
      } finally {
        await sequelize.close();
      }
    }
  });

  it('keys templates by the migrations: a changed one gets a new template, and unused old ones go', async () => {
    const first: TemplateSpec = { family, sets: () => [notesSet()] };
    const changed: TemplateSpec = { family, sets: () => [notesSet(true)] };
    expect(templateName(changed)).to.not.equal(templateName(first));
    databases.push(await createTestDatabase('tpl', first));

    // Another run's template of the family, last used two hours ago: stale.
    const stale = `agora_tpl_${family}_0000000000000000`;
    await withClient(await testServerUrl(), async (client) => {
      await client.query(`CREATE DATABASE ${quoteIdentifier(stale)}`);
      await client.query(
        `COMMENT ON DATABASE ${quoteIdentifier(stale)} IS '${new Date(Date.now() - 7_200_000).toISOString()}'`,
      );
    });

    const copy = await createTestDatabase('tpl', changed);
    databases.push(copy);
    const names = await templatesOf(family);
    // The first template was used a moment ago (another run may still clone it): it stays for now.
    expect(names).to.include(templateName(changed)).and.include(templateName(first));
    expect(names).to.not.include(stale);
    const [check] = await withClient(
      copy.url,
      async (client) =>
        (
          await client.query(
            "SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'notes'::regclass AND contype = 'c'",
          )
        ).rows,
    );
    expect(check.n).to.equal(1);
  });
});
