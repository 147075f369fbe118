import { execFile } from 'node:child_process';
import { access, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse, validate } from 'graphql';
import { QueryTypes } from 'sequelize';
import yauzl from 'yauzl';
import { requireSystemTool } from '@agora/core/testing';
import { drainDueJobs } from '@agora/db/testing';
import { buildSchema } from '../../graphql/schema.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { EXPORT_JOBS } from './exports.jobs.js';

const run = promisify(execFile);

const CREATE_PERSON = `mutation($preferredUsername: String!, $name: String) {
  createPerson(preferredUsername: $preferredUsername, name: $name) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $beginsOn: DateTime!, $options: EventOptionsInput) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "", beginsOn: $beginsOn,
    options: $options) { id uuid } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!, $email: String, $message: String) {
  joinEvent(eventId: $eventId, actorId: $actorId, email: $email, message: $message) { id role } }`;
// The reference web client's 2.x document, as it sends it.
const EXPORT = `mutation ExportEventParticipants($eventId: ID!, $format: ExportFormatEnum, $roles: [ParticipantRoleEnum]) {
  exportEventParticipants(eventId: $eventId, format: $format, roles: $roles)
}`;

const HOUR_MS = 3_600_000;
const errorOf = (response: GraphQLResponse) => firstErrorFields(response, 'message', 'code', 'status_code');

interface Profile {
  token: string;
  profileId: string;
}

/** The entries of a zip, by name, in archive order: read with yauzl, not with the library that wrote it. */
function unzip(bytes: Buffer): Promise<Array<{ name: string; compressed: boolean; text: string }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries: Array<{ name: string; compressed: boolean; text: string }> = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.push({
              name: entry.fileName,
              compressed: entry.compressionMethod !== 0,
              text: Buffer.concat(chunks).toString('utf8'),
            });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('participant exports (issue 13 §3)', () => {
  let server: TestServer;
  let now = new Date();
  // The clock of the server (sessions, exports); one test moves it past every export's lifetime.
  const clock = () => now;
  let organizer: Profile;
  let alice: Profile;
  let bob: Profile;
  let stranger: Profile;
  let event: { id: string; uuid: string };
  let next = 0;

  async function withProfile(username: string, name = ''): Promise<Profile> {
    next += 1;
    const session = await signedInAccount(server, `exporter${next}@example.org`);
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, {
        token: session.token,
        variables: { preferredUsername: username, name },
      }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id };
  }

  const exportAs = (who: Profile | null, variables: Record<string, unknown>) =>
    gql(server, EXPORT, {
      ...(who ? { token: who.token } : {}),
      variables: { eventId: event.id, ...variables },
    });
  const exported = async (format: string, roles?: string[]) =>
    ok<string>(await exportAs(organizer, { format, ...(roles ? { roles } : {}) }), 'exportEventParticipants');
  const download = (path: string, who: Profile | null = organizer) =>
    fetch(`${server.url}${path}`, { headers: who ? { authorization: `Bearer ${who.token}` } : {} });

  before(async () => {
    server = await startTestServer(
      'exports',
      {
        EXPORT_FORMATS: 'csv,pdf,ods',
        ANONYMOUS_PARTICIPATION: 'true',
        ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION: 'false',
      },
      { clock },
    );
    organizer = await withProfile('organizer', 'Olga Organizer');
    alice = await withProfile('alice', 'Alice Liddell');
    bob = await withProfile('bob');
    stranger = await withProfile('stranger', 'Sam Stranger');
    event = ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: {
          organizerActorId: organizer.profileId,
          title: 'Garden party',
          beginsOn: new Date(Date.now() + 3 * 86_400_000).toISOString(),
          options: { anonymousParticipation: true },
        },
      }),
      'createEvent',
    );
    ok(
      await gql(server, JOIN, {
        token: alice.token,
        variables: { eventId: event.id, actorId: alice.profileId, message: 'I bring cake, and "tea"' },
      }),
      'joinEvent',
    );
    ok(
      await gql(server, JOIN, { token: bob.token, variables: { eventId: event.id, actorId: bob.profileId } }),
      'joinEvent',
    );
    const anonymousActorId = ok<{ anonymous: { actorId: string } }>(
      await gql(server, '{ config { anonymous { actorId } } }'),
      'config',
    ).anonymous.actorId;
    ok(
      await gql(server, JOIN, {
        variables: { eventId: event.id, actorId: anonymousActorId, email: 'guest@example.org' },
      }),
      'joinEvent',
    );
  });
  after(() => server?.stop());

  it('exports CSV that a CSV parser reads: the reference columns, every participant, the download name', async () => {
    const name = await exported('CSV');
    expect(name).to.match(/^[A-Za-z0-9_-]{22}\.csv$/);
    const response = await download(`/exports/csv/${name}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).to.equal(
      'attachment; filename="Garden party_participants.csv"',
    );
    expect(response.headers.get('cache-control')).to.equal('private, no-store');
    const rows = parseCsv(await response.text()) as string[][];
    expect(rows[0]).to.deep.equal([
      'Participant name',
      'Participant status',
      'Participant message',
      'Participation date',
    ]);
    expect(rows.slice(1).map((row) => row.slice(0, 3))).to.deep.equal([
      ['Olga Organizer (@organizer)', 'Creator', ''],
      ['Alice Liddell (@alice)', 'Participant', 'I bring cake, and "tea"'],
      ['bob', 'Participant', ''],
      ['Anonymous participant', 'Participant', ''],
    ]);
    for (const row of rows.slice(1)) expect(Date.parse(row[3]!)).to.be.closeTo(Date.now(), 10 * 60_000);
  });

  it('exports CSV when no format is given, and names the download after any title', async () => {
    const other = ok<{ id: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: {
          organizerActorId: organizer.profileId,
          title: 'Fête d’été / 2030',
          beginsOn: new Date(Date.now() + 86_400_000).toISOString(),
        },
      }),
      'createEvent',
    );
    const name = ok<string>(await exportAs(organizer, { eventId: other.id }), 'exportEventParticipants');
    expect(name).to.match(/\.csv$/);
    const response = await download(`/exports/csv/${name}`);
    expect(response.status).to.equal(200);
    // An ASCII fallback, and the exact name for clients that read RFC 6266's filename*.
    expect(response.headers.get('content-disposition')).to.match(
      /^attachment; filename="[^"]+_participants\.csv"; filename\*=UTF-8''F%C3%AAte%20d%E2%80%99%C3%A9t%C3%A9%20_%202030_participants\.csv$/,
    );
    // Its event deleted, an export is gone at once (the job deletes the file later).
    ok(
      await gql(server, 'mutation($id: ID!) { deleteEvent(eventId: $id) { id } }', {
        token: organizer.token,
        variables: { id: other.id },
      }),
      'deleteEvent',
    );
    expect((await download(`/exports/csv/${name}`)).status).to.equal(404);
  });

  it('exports only the roles asked for', async () => {
    const name = await exported('CSV', ['CREATOR']);
    const rows = parseCsv(await (await download(`/exports/csv/${name}`)).text()) as string[][];
    expect(rows.slice(1).map((row) => row[0])).to.deep.equal(['Olga Organizer (@organizer)']);
  });

  it('exports a PDF that pdftotext reads', async function () {
    const pdftotext = await requireSystemTool(this, 'pdftotext');
    const name = await exported('PDF');
    const response = await download(`/exports/pdf/${name}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/pdf');
    expect(response.headers.get('content-disposition')).to.equal(
      'attachment; filename="Garden party_participants.pdf"',
    );
    const file = join(await mkdtemp(join(tmpdir(), 'agora-export-')), 'participants.pdf');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const { stdout } = await run(pdftotext, ['-layout', file, '-']);
    expect(stdout).to.contain('Participants for Garden party');
    for (const text of [
      'Participant name',
      'Olga Organizer (@organizer)',
      'Alice Liddell (@alice)',
      'bob',
      'Anonymous participant',
      'I bring cake',
    ]) {
      expect(stdout).to.contain(text);
    }
  });

  it('exports an ODS whose content.xml, unzipped by another library, lists the participants', async () => {
    const name = await exported('ODS');
    const response = await download(`/exports/ods/${name}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/vnd.oasis.opendocument.spreadsheet');
    const entries = await unzip(Buffer.from(await response.arrayBuffer()));
    // ODF: the `mimetype` entry first and stored, so tools recognise the file by its first bytes.
    expect(entries[0]).to.deep.include({
      name: 'mimetype',
      compressed: false,
      text: 'application/vnd.oasis.opendocument.spreadsheet',
    });
    const content = entries.find((entry) => entry.name === 'content.xml')!.text;
    const cells = [...content.matchAll(/<text:p>([^<]*)<\/text:p>/g)].map((match) => match[1]);
    expect(cells).to.include.members([
      'Participant name',
      'Olga Organizer (@organizer)',
      'Alice Liddell (@alice)',
      'I bring cake, and &quot;tea&quot;',
      'bob',
      'Anonymous participant',
    ]);
    expect(entries.map((entry) => entry.name)).to.include('META-INF/manifest.xml');
  });

  describe('authorization (auth-per-operation.md, §2.2)', () => {
    it('lets only the organizer export: anonymous callers and other users are refused', async () => {
      expect(errorOf(await exportAs(null, { format: 'CSV' }))).to.deep.equal({
        message: 'You need to be logged in',
        code: 'unauthenticated',
        status_code: 401,
      });
      for (const other of [alice, stranger]) {
        expect(errorOf(await exportAs(other, { format: 'CSV' }))).to.deep.equal({
          message: "Provided profile doesn't have moderator permissions on this event",
          code: 'unknown_error',
          status_code: 500,
        });
      }
      expect(errorOf(await exportAs(organizer, { eventId: '1042', format: 'CSV' })).message).to.equal(
        `Event with this ID "1042" doesn't exist`,
      );
      expect(errorOf(await exportAs(organizer, { eventId: 'nope', format: 'CSV' })).message).to.equal(
        `Event with this ID "nope" doesn't exist`,
      );
    });

    it('serves the file to the organizer only: 401 anonymous, 403 other users, 404 unknown', async () => {
      const name = await exported('CSV');
      expect((await download(`/exports/csv/${name}`, null)).status).to.equal(401);
      const other = await download(`/exports/csv/${name}`, stranger);
      expect(other.status).to.equal(403);
      expect(await other.text()).to.not.contain('Alice');
      expect((await download(`/exports/csv/${name}`, alice)).status).to.equal(403);
      expect((await download(`/exports/pdf/${name}`)).status).to.equal(404);
      expect((await download('/exports/csv/unknown.csv')).status).to.equal(404);
      expect((await download('/exports/csv/..%2F..%2Fetc%2Fpasswd')).status).to.equal(404);
      // The export storage is not the media storage: nothing of it under /media.
      expect((await download(`/media/exports/csv/${name}`)).status).to.equal(404);
    });

    it('refuses a format the instance does not offer, in GraphQL and over HTTP', async () => {
      const csvOnly = await server.sibling({ EXPORT_FORMATS: 'csv' }, { clock });
      try {
        const response = await gql(csvOnly, EXPORT, {
          token: organizer.token,
          variables: { eventId: event.id, format: 'ODS' },
        });
        expect(errorOf(response)).to.deep.equal({
          message: 'Export to format ODS is not enabled on this instance',
          code: 'unknown_error',
          status_code: 500,
        });
        const name = await exported('ODS');
        const refused = await fetch(`${csvOnly.url}/exports/ods/${name}`, {
          headers: { authorization: `Bearer ${organizer.token}` },
        });
        expect(refused.status).to.equal(404);
      } finally {
        await csvOnly.stop();
      }
    });
  });

  it('deletes exports an hour old, rows and files, through the periodic job (ADR 0006)', async () => {
    const old = await exported('CSV');
    const recent = await exported('PDF');
    // `old` was written 61 minutes ago (the sessions' clock stays, so the tokens stay valid).
    await server.ctx.sequelize.query(
      `UPDATE participant_exports SET inserted_at = inserted_at - interval '61 minutes' WHERE file_name = :old`,
      { replacements: { old } },
    );
    const files = async () =>
      (
        await server.ctx.sequelize.query<{ name: string }>(
          'SELECT file_name AS name FROM participant_exports',
          { type: QueryTypes.SELECT },
        )
      ).map((row) => row.name);
    const stored = (format: string, name: string) =>
      access(join(server.ctx.config.dataDir, 'exports', 'events', 'exports', format, name)).then(
        () => true,
        () => false,
      );
    expect(await files()).to.include.members([old, recent]);
    expect(await stored('csv', old)).to.equal(true);
    // Expired already, before the job ran.
    expect((await download(`/exports/csv/${old}`)).status).to.equal(404);

    await server.ctx.jobs.schedule(EXPORT_JOBS.purgeExpiredExports, now, { repeat: false });
    await drainDueJobs(server.ctx.sequelize, [EXPORT_JOBS.purgeExpiredExports]);

    expect(await files()).to.not.include(old);
    expect(await files()).to.include(recent);
    expect(await stored('csv', old)).to.equal(false);
    expect(await stored('pdf', recent)).to.equal(true);
    expect((await download(`/exports/pdf/${recent}`)).status).to.equal(200);

    const started = now;
    now = new Date(now.getTime() + HOUR_MS);
    try {
      await server.ctx.participantExports.purgeExpired();
    } finally {
      now = started;
    }
    expect(await files()).to.deep.equal([]);
    expect(await stored('pdf', recent)).to.equal(false);
  });

  it("validates the reference web client's export document", () => {
    expect(validate(buildSchema(), parse(EXPORT))).to.deep.equal([]);
  });
});
