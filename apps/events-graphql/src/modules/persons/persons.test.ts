import { expect } from 'chai';
import type { Role } from '@agora/auth';
import { ACTOR_KEYS_JOB } from '@agora/federation';
import { QueryTypes } from 'sequelize';
import {
  firstErrorFields,
  gql,
  mailedToken,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');
const confirmationToken = (server: TestServer, email: string) => mailedToken(server, email, 'validate');

interface Profile {
  id: string;
  preferredUsername: string;
  name?: string;
  summary?: string;
}

const PROFILE =
  'id preferredUsername name summary type local domain url suspended avatar { url } banner { url }';
const CREATE_PERSON = `mutation($preferredUsername: String!, $name: String, $summary: String) {
  createPerson(preferredUsername: $preferredUsername, name: $name, summary: $summary) { ${PROFILE} } }`;
const REGISTER_PERSON = `mutation($email: String!, $preferredUsername: String!, $name: String) {
  registerPerson(email: $email, preferredUsername: $preferredUsername, name: $name) { ${PROFILE} } }`;
const UPDATE_PERSON = `mutation($id: ID!, $name: String, $summary: String) {
  updatePerson(id: $id, name: $name, summary: $summary) { ${PROFILE} } }`;
const DELETE_PERSON = `mutation($id: ID!) { deletePerson(id: $id) { id preferredUsername } }`;
const CHANGE_DEFAULT = `mutation($preferredUsername: String!) {
  changeDefaultActor(preferredUsername: $preferredUsername) { id defaultActor { preferredUsername } } }`;
const LOGGED_PERSON = `{ loggedPerson { ${PROFILE} } }`;
const IDENTITIES = `{ identities { id preferredUsername } }`;
const PERSON = `query($id: ID!) { person(id: $id) { ${PROFILE} user { email } } }`;
const FETCH_PERSON = `query($name: String!) { fetchPerson(preferredUsername: $name) { id preferredUsername } }`;

/** A confirmed account with a session (no profile yet), signing in through a provider: no hash. */
const account = (server: TestServer, email: string, role: Role = 'USER') =>
  signedInAccount(server, email, { role });

/** An account with one profile named `username`. */
async function withProfile(server: TestServer, email: string, username: string, role: Role = 'USER') {
  const session = await account(server, email, role);
  const profile = ok<Profile>(
    await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
    'createPerson',
  );
  return { ...session, profile };
}

describe('persons', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('persons', {
      REGISTRATIONS_OPEN: 'true',
      TRUST_PROXY: 'true',
      PUBLIC_URL: 'https://events.test',
    });
  });
  after(() => server?.stop());

  it('registers the first profile of a new account, which then acts as it once signed in', async () => {
    const email = 'ada@example.org';
    ok(
      await gql(server, `mutation { createUser(email: "${email}", password: "correct horse") { id } }`),
      'createUser',
    );
    const registered = ok<Profile>(
      await gql(server, REGISTER_PERSON, { variables: { email, preferredUsername: 'ada', name: 'Ada L.' } }),
      'registerPerson',
    );
    expect(registered).to.deep.include({
      preferredUsername: 'ada',
      name: 'Ada L.',
      type: 'PERSON',
      local: true,
      domain: null,
      url: 'https://events.test/@ada',
      suspended: false,
      avatar: null,
      banner: null,
    });

    const again = firstError(
      await gql(server, REGISTER_PERSON, { variables: { email, preferredUsername: 'ada_two' } }),
    );
    expect(again.message).to.equal('You already have a profile for this user');
    const stranger = firstError(
      await gql(server, REGISTER_PERSON, {
        variables: { email: 'nobody@example.org', preferredUsername: 'nobody' },
      }),
    );
    expect(stranger.message).to.equal('No user with this email was found');

    const token = await confirmationToken(server, email);
    const validated = ok<{ user: { defaultActor: Profile } }>(
      await gql(
        server,
        `mutation($token: String!) { validateUser(token: $token) { user { defaultActor { id } } } }`,
        {
          variables: { token },
        },
      ),
      'validateUser',
    );
    expect(validated.user.defaultActor.id).to.equal(registered.id);
    const login = ok<{ accessToken: string; user: { defaultActor: Profile; actors: Profile[] } }>(
      await gql(
        server,
        `mutation { login(email: "${email}", password: "correct horse") {
          accessToken user { defaultActor { id preferredUsername } actors { preferredUsername } } } }`,
      ),
      'login',
    );
    expect(login.user.defaultActor).to.deep.equal({ id: registered.id, preferredUsername: 'ada' });
    expect(login.user.actors).to.deep.equal([{ preferredUsername: 'ada' }]);
    const logged = ok<Profile>(
      await gql(server, LOGGED_PERSON, { token: login.accessToken }),
      'loggedPerson',
    );
    expect(logged.id).to.equal(registered.id);
    expect(firstError(await gql(server, LOGGED_PERSON)).status_code).to.equal(401);
  });

  it('adds a second identity, lists both, and switches the default between them', async () => {
    const bea = await withProfile(server, 'bea@example.org', 'bea');
    const other = await withProfile(server, 'cid@example.org', 'cid');
    const second = ok<Profile>(
      await gql(server, CREATE_PERSON, {
        token: bea.token,
        variables: { preferredUsername: 'bea_work', name: 'Bea at work' },
      }),
      'createPerson',
    );
    expect(ok<Profile[]>(await gql(server, IDENTITIES, { token: bea.token }), 'identities')).to.deep.equal([
      { id: bea.profile.id, preferredUsername: 'bea' },
      { id: second.id, preferredUsername: 'bea_work' },
    ]);
    // Adding a profile does not change which one the user acts as.
    expect(ok<Profile>(await gql(server, LOGGED_PERSON, { token: bea.token }), 'loggedPerson').id).to.equal(
      bea.profile.id,
    );

    const switched = ok<{ id: string; defaultActor: Profile }>(
      await gql(server, CHANGE_DEFAULT, { token: bea.token, variables: { preferredUsername: 'bea_work' } }),
      'changeDefaultActor',
    );
    expect(switched).to.deep.equal({ id: bea.id, defaultActor: { preferredUsername: 'bea_work' } });
    expect(ok<Profile>(await gql(server, LOGGED_PERSON, { token: bea.token }), 'loggedPerson').id).to.equal(
      second.id,
    );

    const notHers = firstError(
      await gql(server, CHANGE_DEFAULT, { token: bea.token, variables: { preferredUsername: 'cid' } }),
    );
    expect(notHers.message).to.equal('This profile does not belong to you');
    const unknown = firstError(
      await gql(server, CHANGE_DEFAULT, {
        token: bea.token,
        variables: { preferredUsername: 'nobody_here' },
      }),
    );
    expect(unknown.message).to.equal('Profile with username nobody_here not found');
    expect(ok<Profile>(await gql(server, LOGGED_PERSON, { token: other.token }), 'loggedPerson').id).to.equal(
      other.profile.id,
    );
    expect(
      firstError(await gql(server, CREATE_PERSON, { variables: { preferredUsername: 'anon' } })).status_code,
    ).to.equal(401);
  });

  it('updates only the caller’s own profiles, with a sanitized summary', async () => {
    const dan = await withProfile(server, 'dan@example.org', 'dan');
    const eve = await withProfile(server, 'eve@example.org', 'eve');
    const summary =
      '<p onclick="steal()">Hi <script>alert(1)</script><b>there</b> <a href="javascript:alert(1)">x</a> <a href="https://dan.example/">site</a></p><img src="https://tracker.example/p.gif">';
    const updated = ok<Profile>(
      await gql(server, UPDATE_PERSON, {
        token: dan.token,
        variables: { id: dan.profile.id, name: 'Dan D.', summary },
      }),
      'updatePerson',
    );
    expect(updated.name).to.equal('Dan D.');
    expect(updated.summary).to.equal(
      '<p>Hi <b>there</b> <a rel="nofollow noopener noreferrer ugc" target="_blank">x</a> ' +
        '<a href="https://dan.example/" rel="nofollow noopener noreferrer ugc" target="_blank">site</a></p>',
    );
    // Omitted values stay as they are.
    const renamed = ok<Profile>(
      await gql(server, UPDATE_PERSON, { token: dan.token, variables: { id: dan.profile.id, name: 'Dan' } }),
      'updatePerson',
    );
    expect(renamed).to.include({ name: 'Dan', summary: updated.summary });

    const theirs = firstError(
      await gql(server, UPDATE_PERSON, {
        token: dan.token,
        variables: { id: eve.profile.id, name: 'Hacked' },
      }),
    );
    expect(theirs).to.include({
      message: 'Profile is not owned by authenticated user',
      code: 'unknown_error',
    });
    const missing = firstError(
      await gql(server, UPDATE_PERSON, { token: dan.token, variables: { id: '987654', name: 'Ghost' } }),
    );
    expect(missing.message).to.equal('Profile not found');
    const eveNow = ok<Profile>(await gql(server, PERSON, { variables: { id: eve.profile.id } }), 'person');
    expect(eveNow.name).to.equal('');
  });

  it('never deletes the last identity, and moves the default off a deleted one', async () => {
    const fay = await withProfile(server, 'fay@example.org', 'fay');
    const last = firstError(
      await gql(server, DELETE_PERSON, { token: fay.token, variables: { id: fay.profile.id } }),
    );
    expect(last.message).to.equal('Cannot remove the last identity of a user');

    const gus = await withProfile(server, 'gus@example.org', 'gus');
    const notHers = firstError(
      await gql(server, DELETE_PERSON, { token: fay.token, variables: { id: gus.profile.id } }),
    );
    expect(notHers.message).to.equal('Profile is not owned by authenticated user');

    const spare = ok<Profile>(
      await gql(server, CREATE_PERSON, { token: fay.token, variables: { preferredUsername: 'fay_spare' } }),
      'createPerson',
    );
    const deleted = ok<Profile>(
      await gql(server, DELETE_PERSON, { token: fay.token, variables: { id: fay.profile.id } }),
      'deletePerson',
    );
    expect(deleted).to.deep.equal({ id: fay.profile.id, preferredUsername: 'fay' });
    expect(ok<Profile>(await gql(server, LOGGED_PERSON, { token: fay.token }), 'loggedPerson').id).to.equal(
      spare.id,
    );
    expect(ok<Profile[]>(await gql(server, IDENTITIES, { token: fay.token }), 'identities')).to.have.length(
      1,
    );
    // Stored too, for modules that read the default without asking this one.
    const [stored] = await server.ctx.sequelize.query<{ id: string }>(
      'SELECT actor_id AS id FROM user_default_actors WHERE user_id = $1',
      { bind: [fay.id], type: QueryTypes.SELECT },
    );
    expect(String(stored!.id)).to.equal(spare.id);
    expect(firstError(await gql(server, PERSON, { variables: { id: fay.profile.id } })).message).to.equal(
      `Person with ID ${fay.profile.id} not found`,
    );
    // The name stays reserved, as in the reference: nobody takes over a profile others followed.
    for (const token of [fay.token, gus.token]) {
      expect(
        firstError(await gql(server, CREATE_PERSON, { token, variables: { preferredUsername: 'Fay' } })),
      ).to.deep.include({ message: ['This username is already taken.'], field: 'preferred_username' });
    }
  });

  it('accepts only lower-case letters, digits and underscores, unique whatever the case', async () => {
    const hal = await account(server, 'hal@example.org');
    const invalid = firstError(
      await gql(server, CREATE_PERSON, { token: hal.token, variables: { preferredUsername: 'me@no' } }),
    );
    expect(invalid).to.deep.equal({
      message: ['Username must only contain alphanumeric lowercased characters and underscores.'],
      code: 'validation',
      status_code: 422,
      field: 'preferred_username',
    });
    // Upper case is lowered first, as the reference does.
    const lowered = ok<Profile>(
      await gql(server, CREATE_PERSON, { token: hal.token, variables: { preferredUsername: 'Hal_9000' } }),
      'createPerson',
    );
    expect(lowered.preferredUsername).to.equal('hal_9000');

    await withProfile(server, 'ivy@example.org', 'ivy');
    for (const preferredUsername of ['IVY', 'hal_9000']) {
      const taken = firstError(
        await gql(server, CREATE_PERSON, { token: hal.token, variables: { preferredUsername } }),
      );
      expect(taken).to.deep.include({
        message: ['This username is already taken.'],
        field: 'preferred_username',
      });
    }
    expect(ok<Profile[]>(await gql(server, IDENTITIES, { token: hal.token }), 'identities')).to.have.length(
      1,
    );
  });

  it('shows a profile to anyone by id, and finds one by name for signed-in users only', async () => {
    const jo = await withProfile(server, 'jo@example.org', 'jo');
    const seen = ok<Profile & { user: unknown }>(
      await gql(server, PERSON, { variables: { id: jo.profile.id } }),
      'person',
    );
    expect(seen).to.include({ id: jo.profile.id, preferredUsername: 'jo', user: null });
    const own = ok<{ user: { email: string } }>(
      await gql(server, PERSON, { token: jo.token, variables: { id: jo.profile.id } }),
      'person',
    );
    expect(own.user).to.deep.equal({ email: 'jo@example.org' });
    expect(firstError(await gql(server, PERSON, { variables: { id: '4242424' } })).message).to.equal(
      'Person with ID 4242424 not found',
    );

    const anonymous = firstError(await gql(server, FETCH_PERSON, { variables: { name: 'jo' } }));
    expect(anonymous).to.include({ message: 'You need to be logged in', status_code: 401 });
    for (const name of ['jo', 'jo@events.test']) {
      const found = ok<Profile>(
        await gql(server, FETCH_PERSON, { token: jo.token, variables: { name } }),
        'fetchPerson',
      );
      expect(found.id).to.equal(jo.profile.id);
    }
    const remote = firstError(
      await gql(server, FETCH_PERSON, { token: jo.token, variables: { name: 'jo@far.example' } }),
    );
    expect(remote.message).to.equal('Person with username jo@far.example not found');
  });

  it('lets only moderators list and search profiles, and see their owners', async () => {
    const kim = await withProfile(server, 'kim@example.org', 'kim_listed');
    const mod = await withProfile(server, 'mod@example.org', 'the_mod', 'MODERATOR');
    const list = `{ persons(preferredUsername: "kim") { total elements { preferredUsername user { email } } } }`;
    const search = `{ searchPersons(term: "kim_list") { total elements { id preferredUsername } } }`;
    for (const query of [list, search]) {
      expect(firstError(await gql(server, query, { token: kim.token }))).to.include({
        code: 'unauthorized',
        status_code: 403,
      });
      expect(firstError(await gql(server, query)).status_code).to.equal(401);
    }
    expect(ok(await gql(server, list, { token: mod.token }), 'persons')).to.deep.equal({
      total: 1,
      elements: [{ preferredUsername: 'kim_listed', user: { email: 'kim@example.org' } }],
    });
    expect(ok(await gql(server, search, { token: mod.token }), 'searchPersons')).to.deep.equal({
      total: 1,
      elements: [{ id: kim.profile.id, preferredUsername: 'kim_listed' }],
    });
    const remoteOnly = `{ persons(local: false) { total elements { id } } }`;
    expect(ok(await gql(server, remoteOnly, { token: mod.token }), 'persons')).to.deep.equal({
      total: 0,
      elements: [],
    });
    // Another plain user sees the profile but not whose it is.
    const other = ok<{ user: unknown }>(
      await gql(server, PERSON, {
        token: (await account(server, 'lea@example.org')).token,
        variables: { id: kim.profile.id },
      }),
      'person',
    );
    expect(other.user).to.equal(null);
  });

  // issue 12 §2: the default empty `term` used to sort by `ORDER BY 0` and answer 500.
  it('lets an administrator search with the default empty term: every profile, paged, oldest first', async () => {
    const admin = await withProfile(server, 'boss@example.org', 'the_boss', 'ADMINISTRATOR');
    for (const name of ['qin', 'rae', 'sol']) await withProfile(server, `${name}@example.org`, `${name}_p`);
    const ids = (
      await server.ctx.sequelize.query<{ id: string }>(
        `SELECT id FROM actors WHERE type = 'Person' AND suspended_at IS NULL ORDER BY id`,
        { type: QueryTypes.SELECT },
      )
    ).map((row) => String(row.id));
    expect(ids.length).to.be.greaterThan(3);

    const exact = await gql(server, '{ searchPersons { total } }', { token: admin.token });
    expect(exact.status).to.equal(200);
    expect(ok(exact, 'searchPersons')).to.deep.equal({ total: ids.length });

    const page = `query($page: Int) { searchPersons(page: $page, limit: 2) { total elements { id } } }`;
    const seen: string[] = [];
    for (let number = 1; seen.length < ids.length; number++) {
      const result = ok<{ total: number; elements: { id: string }[] }>(
        await gql(server, page, { token: admin.token, variables: { page: number } }),
        'searchPersons',
      );
      expect(result.total).to.equal(ids.length);
      expect(result.elements.length).to.be.within(1, 2);
      seen.push(...result.elements.map((element) => element.id));
    }
    expect(seen).to.deep.equal(ids);
  });

  it('reads the profiles of a page of users or persons with one query per field', async () => {
    const admin = await withProfile(server, 'root@example.org', 'root_admin', 'ADMINISTRATOR');
    for (const name of ['nia', 'oto', 'pam']) {
      const user = await withProfile(server, `${name}@example.org`, `${name}_one`);
      await gql(server, CREATE_PERSON, {
        token: user.token,
        variables: { preferredUsername: `${name}_two` },
      });
    }
    // New profiles get their keys from a job, which reads actors too: let it finish first.
    await server.ctx.queue.drain([ACTOR_KEYS_JOB]);
    const statements: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count-statements', (_options, query) => {
      // The statement a query ran is kept on it, though Sequelize's types leave it out.
      const { sql } = query as unknown as { sql?: string };
      if (sql) statements.push(sql);
    });
    try {
      const users = ok<{ elements: Array<{ email: string; actors: Profile[]; defaultActor: Profile }> }>(
        await gql(
          server,
          `{ users(limit: 50) { elements { email actors { id } defaultActor { preferredUsername } } } }`,
          {
            token: admin.token,
          },
        ),
        'users',
      );
      const seeded = users.elements.filter((user) => /^(nia|oto|pam)@/.test(user.email));
      expect(
        seeded.map((user) => [user.actors.length, user.defaultActor.preferredUsername]),
      ).to.have.deep.members([
        [2, 'nia_one'],
        [2, 'oto_one'],
        [2, 'pam_one'],
      ]);
      expect(statements.filter((sql) => /FROM "actors"/.test(sql))).to.have.length(2);

      statements.length = 0;
      const persons = ok<{ elements: Array<{ preferredUsername: string; user: { email: string } | null }> }>(
        await gql(server, `{ persons(limit: 50) { elements { preferredUsername user { email } } } }`, {
          token: admin.token,
        }),
        'persons',
      );
      // Besides the users' profiles, the instance's anonymous actor, which has no user.
      const owned = persons.elements.filter((person) => person.preferredUsername !== 'anonymous');
      expect(owned.length).to.be.at.least(7);
      expect(owned.every((person) => person.user!.email.endsWith('@example.org'))).to.equal(true);
      expect(persons.elements.length - owned.length).to.equal(1);
      expect(statements.filter((sql) => /FROM "users"/.test(sql))).to.have.length(1);
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count-statements');
    }
  });

  it('deletes the profiles together with the account', async () => {
    const { user } = await server.ctx.accounts.create({
      email: 'quinn@example.org',
      password: 'correct horse',
      confirmed: true,
    });
    const { accessToken: token } = await server.ctx.sessions.issuePair(user);
    const first = ok<Profile>(
      await gql(server, CREATE_PERSON, { token, variables: { preferredUsername: 'quinn' } }),
      'createPerson',
    );
    ok(
      await gql(server, CREATE_PERSON, { token, variables: { preferredUsername: 'quinn_alt' } }),
      'createPerson',
    );
    ok(
      await gql(server, `mutation { deleteAccount(password: "correct horse") { id } }`, { token }),
      'deleteAccount',
    );
    expect(firstError(await gql(server, PERSON, { variables: { id: first.id } })).message).to.equal(
      `Person with ID ${first.id} not found`,
    );
    const [row] = await server.ctx.sequelize.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM actors WHERE username IN ($1, $2)',
      { bind: ['quinn', 'quinn_alt'], type: QueryTypes.SELECT },
    );
    expect(row!.count).to.equal(0);
    const other = await withProfile(server, 'rita@example.org', 'rita');
    for (const preferredUsername of ['quinn', 'quinn_alt']) {
      expect(
        firstError(
          await gql(server, CREATE_PERSON, { token: other.token, variables: { preferredUsername } }),
        ),
        preferredUsername,
      ).to.deep.include({ message: ['This username is already taken.'] });
    }
  });
});
