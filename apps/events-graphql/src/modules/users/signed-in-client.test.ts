import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { buildSchema } from '../../graphql/schema.js';
import { SIGNED_IN_DOCUMENTS } from '../../graphql/web-client-documents.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const D = SIGNED_IN_DOCUMENTS;
const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');

interface Token {
  token: string;
  actor: { id: string } | null;
  user: { id: string } | null;
}

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;

/** A signed-in account with one profile. */
async function member(server: TestServer, name: string) {
  const session = await signedInAccount(server, `${name}@example.org`);
  const profile = ok<{ id: string }>(
    await gql(server, CREATE_PERSON, { token: session.token, variables: { name } }),
    'createPerson',
  );
  return { ...session, profileId: profile.id };
}

describe('the signed-in web client (issue 13 §8)', () => {
  it('validates every signed-in document of the reference web client against the schema', () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(D)) {
      expect(
        validate(schema, parse(document)).map((e) => e.message),
        name,
      ).to.deep.equal([]);
    }
  });

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('signed-in', { TRUST_PROXY: 'true', PUBLIC_URL: 'https://events.test' });
    });
    after(() => server?.stop());

    it('stores the location of setUserSettings, changes it, clears it, and refuses a bad geohash', async () => {
      const ada = await member(server, 'ada_loc');
      const read = async () =>
        ok<{ settings: { location: unknown } }>(
          await gql(server, D.LoggedUserLocation!, { token: ada.token }),
          'loggedUser',
        ).settings.location;
      expect(await read()).to.equal(null);
      const location = { name: 'Nantes', geohash: 'gbqu', range: 25 };
      const set = ok<{ location: unknown; timezone: unknown }>(
        await gql(server, D.SetUserSettings!, { token: ada.token, variables: { location } }),
        'setUserSettings',
      );
      expect(set.location).to.deep.equal({ range: 25, geohash: 'gbqu', name: 'Nantes' });
      expect(await read()).to.deep.equal({ range: 25, geohash: 'gbqu', name: 'Nantes' });
      // Other settings leave the location as it is.
      ok(
        await gql(server, D.SetUserSettings!, { token: ada.token, variables: { notificationOnDay: false } }),
        'setUserSettings',
      );
      expect(await read()).to.deep.equal({ range: 25, geohash: 'gbqu', name: 'Nantes' });
      const settings = ok<{ settings: Record<string, unknown> }>(
        await gql(server, D.LoggedUserAndSettings!, { token: ada.token }),
        'loggedUser',
      ).settings;
      expect(settings).to.deep.include({
        notificationOnDay: false,
        location: { range: 25, geohash: 'gbqu', name: 'Nantes' },
      });
      ok(
        await gql(server, D.SetUserSettings!, { token: ada.token, variables: { location: { range: 10 } } }),
        'setUserSettings',
      );
      expect(await read()).to.deep.equal({ range: 10, geohash: null, name: null });
      ok(
        await gql(server, D.SetUserSettings!, { token: ada.token, variables: { location: null } }),
        'setUserSettings',
      );
      expect(await read()).to.equal(null);
      const bad = await gql(server, D.SetUserSettings!, {
        token: ada.token,
        variables: { location: { geohash: 'not a geohash!' } },
      });
      expect(firstError(bad)).to.include({ code: 'validation', status_code: 422, field: 'location' });
      expect(await read()).to.equal(null);
      const anonymous = await gql(server, D.SetUserSettings!, { variables: { location } });
      expect(firstError(anonymous)).to.include({ message: 'You need to be logged in', status_code: 401 });
    });

    it('creates, lists and deletes feed tokens of the user and of its profiles, for their owner only', async () => {
      const ada = await member(server, 'ada_feed');
      const bob = await member(server, 'bob_feed');
      const forUser = ok<Token>(
        await gql(server, D.CreateFeedToken!, { token: ada.token }),
        'createFeedToken',
      );
      expect(forUser.token).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(forUser).to.deep.include({ actor: null, user: { id: ada.id } });
      const forProfile = ok<Token>(
        await gql(server, D.CreateFeedTokenActor!, {
          token: ada.token,
          variables: { actor_id: ada.profileId },
        }),
        'createFeedToken',
      );
      expect(forProfile).to.deep.include({ actor: { id: ada.profileId }, user: { id: ada.id } });
      expect(forProfile.token).to.not.equal(forUser.token);

      const listed = ok<{ feedTokens: Token[] }>(
        await gql(server, D.FeedTokensLoggedUser!, { token: ada.token }),
        'loggedUser',
      );
      expect(listed.feedTokens).to.have.deep.members([
        { token: forUser.token, actor: null },
        { token: forProfile.token, actor: { id: ada.profileId } },
      ]);
      const own = ok<{ feedTokens: Array<{ token: string }> }>(
        await gql(server, D.FetchPerson!, { token: ada.token, variables: { username: 'ada_feed' } }),
        'fetchPerson',
      );
      expect(own.feedTokens).to.deep.equal([{ token: forProfile.token }]);
      // Someone else's profile shows no tokens; nor does anyone else's user.
      const person = `query($id: ID!) { person(id: $id) { id feedTokens { token } unreadConversationsCount } }`;
      const seen = ok<{ feedTokens: unknown; unreadConversationsCount: unknown }>(
        await gql(server, person, { token: bob.token, variables: { id: ada.profileId } }),
        'person',
      );
      expect(seen).to.deep.include({ feedTokens: null, unreadConversationsCount: null });
      const bobs = ok<{ feedTokens: unknown[] }>(
        await gql(server, D.FeedTokensLoggedUser!, { token: bob.token }),
        'loggedUser',
      );
      expect(bobs.feedTokens).to.deep.equal([]);

      // Bad input: someone else's profile, someone else's token, a malformed token, an unknown one.
      const othersProfile = await gql(server, D.CreateFeedTokenActor!, {
        token: bob.token,
        variables: { actor_id: ada.profileId },
      });
      expect(firstError(othersProfile)).to.include({
        message: 'Profile is not owned by authenticated user',
        code: 'unknown_error',
        status_code: 500,
      });
      const othersToken = await gql(server, D.DeleteFeedToken!, {
        token: bob.token,
        variables: { token: forUser.token },
      });
      expect(firstError(othersToken)).to.include({
        message: "You don't have permission to delete this token",
        code: 'unknown_error',
        status_code: 500,
      });
      const malformed = await gql(server, D.DeleteFeedToken!, {
        token: ada.token,
        variables: { token: 'nope' },
      });
      expect(firstError(malformed)).to.include({
        message: 'Token is not a valid UUID',
        code: 'unknown_error',
      });
      const unknown = await gql(server, D.DeleteFeedToken!, {
        token: ada.token,
        variables: { token: '00000000-0000-4000-8000-000000000000' },
      });
      expect(firstError(unknown)).to.include({ message: 'Token does not exist', code: 'unknown_error' });

      // Anonymous callers get the reference's own messages.
      expect(firstError(await gql(server, D.CreateFeedToken!)).message).to.equal(
        'You are not allowed to create a feed token if not connected',
      );
      expect(
        firstError(await gql(server, D.DeleteFeedToken!, { variables: { token: forUser.token } })).message,
      ).to.equal('You are not allowed to delete a feed token if not connected');

      const deleted = ok<Record<string, unknown>>(
        await gql(server, D.DeleteFeedToken!, { token: ada.token, variables: { token: forProfile.token } }),
        'deleteFeedToken',
      );
      expect(deleted).to.deep.equal({ actor: { id: ada.profileId }, user: { id: ada.id } });
      const afterDelete = ok<{ feedTokens: Token[] }>(
        await gql(server, D.FeedTokensLoggedUser!, { token: ada.token }),
        'loggedUser',
      );
      expect(afterDelete.feedTokens).to.deep.equal([{ token: forUser.token, actor: null }]);
      const again = await gql(server, D.DeleteFeedToken!, {
        token: ada.token,
        variables: { token: forProfile.token },
      });
      expect(firstError(again).message).to.equal('Token does not exist');
    });

    it("gives each of the user's profiles its own feed tokens in one answer", async () => {
      const eve = await member(server, 'eve_many');
      const second = ok<{ id: string }>(
        await gql(server, CREATE_PERSON, { token: eve.token, variables: { name: 'eve_second' } }),
        'createPerson',
      );
      const create = async (actorId: string) =>
        ok<Token>(
          await gql(server, D.CreateFeedTokenActor!, { token: eve.token, variables: { actor_id: actorId } }),
          'createFeedToken',
        ).token;
      const first = await create(eve.profileId);
      const other = await create(second.id);
      const identities = ok<Array<{ id: string; feedTokens: Array<{ token: string }> }>>(
        await gql(server, '{ identities { id feedTokens { token } } }', { token: eve.token }),
        'identities',
      );
      expect(identities).to.deep.equal([
        { id: eve.profileId, feedTokens: [{ token: first }] },
        { id: second.id, feedTokens: [{ token: other }] },
      ]);
    });

    it('upserts activity settings per (key, method) and lists them for their user', async () => {
      const ada = await member(server, 'ada_act');
      const bob = await member(server, 'bob_act');
      const update = (token: string, key: string, method: string, enabled: boolean) =>
        gql(server, D.UpdateActivitySetting!, { token, variables: { key, method, enabled } });
      expect(
        ok(await update(ada.token, 'event_created', 'email', true), 'updateActivitySetting'),
      ).to.deep.equal({
        key: 'event_created',
        method: 'email',
        enabled: true,
      });
      ok(await update(ada.token, 'event_created', 'push', true), 'updateActivitySetting');
      ok(await update(ada.token, 'event_created', 'email', false), 'updateActivitySetting');
      ok(await update(bob.token, 'member_request', 'email', true), 'updateActivitySetting');
      const notifications = ok<{ activitySettings: unknown[]; feedTokens: unknown[] }>(
        await gql(server, D.UserNotifications!, { token: ada.token }),
        'loggedUser',
      );
      expect(notifications.activitySettings).to.deep.equal([
        { key: 'event_created', method: 'email', enabled: false },
        { key: 'event_created', method: 'push', enabled: true },
      ]);
      expect(notifications.feedTokens).to.deep.equal([]);
      const withUser = `mutation { updateActivitySetting(key: "x", method: "email", enabled: true) { user { id } } }`;
      expect(ok(await gql(server, withUser, { token: ada.token }), 'updateActivitySetting')).to.deep.equal({
        user: { id: ada.id },
      });
      const bad = await update(ada.token, '', 'email', true);
      expect(firstError(bad)).to.include({ code: 'validation', status_code: 422, field: 'key' });
      const anonymous = await update('', 'event_created', 'email', true);
      expect(firstError(anonymous)).to.include({ message: 'You need to be logged in', status_code: 401 });
    });

    it('answers no authorized applications and no unread conversations for the owner', async () => {
      const ada = await member(server, 'ada_apps');
      const apps = ok<{ authAuthorizedApplications: unknown[] }>(
        await gql(server, D.AuthAuthorizedApplications!, { token: ada.token }),
        'loggedUser',
      );
      expect(apps.authAuthorizedApplications).to.deep.equal([]);
      const unread = ok<{ defaultActor: { id: string; unreadConversationsCount: number } }>(
        await gql(server, D.LoggedUserUnreadConversations!, { token: ada.token }),
        'loggedUser',
      );
      expect(unread.defaultActor).to.deep.equal({ id: ada.profileId, unreadConversationsCount: 0 });
      expect(firstError(await gql(server, D.AuthAuthorizedApplications!))).to.include({ status_code: 401 });
    });

    it("shows a user's activity settings and authorized apps to moderators, never its feed tokens", async () => {
      const ada = await member(server, 'ada_matrix');
      ok(await gql(server, D.CreateFeedToken!, { token: ada.token }), 'createFeedToken');
      ok(
        await gql(server, D.UpdateActivitySetting!, {
          token: ada.token,
          variables: { key: 'event_created', method: 'email', enabled: true },
        }),
        'updateActivitySetting',
      );
      const moderator = await signedInAccount(server, 'mod_matrix@example.org', { role: 'MODERATOR' });
      const query = `query($id: ID!) {
        user(id: $id) { id feedTokens { token } activitySettings { key } authAuthorizedApplications { id } } }`;
      const seen = ok<Record<string, unknown>>(
        await gql(server, query, { token: moderator.token, variables: { id: ada.id } }),
        'user',
      );
      expect(seen).to.deep.equal({
        id: ada.id,
        feedTokens: null,
        activitySettings: [{ key: 'event_created' }],
        authAuthorizedApplications: [],
      });
      // Another user reaches no one else's User: `person.user` is null for it.
      const bob = await member(server, 'bob_matrix');
      const viaPerson = `query($id: ID!) { person(id: $id) { user { feedTokens { token } } } }`;
      expect(
        ok<{ user: unknown }>(
          await gql(server, viaPerson, { token: bob.token, variables: { id: ada.profileId } }),
          'person',
        ).user,
      ).to.equal(null);
    });

    it("lets fetchPerson answer only the caller's own profiles", async () => {
      const ada = await member(server, 'ada_fetch');
      await member(server, 'bob_fetch');
      const own = ok<{ id: string }>(
        await gql(server, D.FetchPerson!, { token: ada.token, variables: { username: 'ada_fetch' } }),
        'fetchPerson',
      );
      expect(own.id).to.equal(ada.profileId);
      const others = await gql(server, D.FetchPerson!, {
        token: ada.token,
        variables: { username: 'bob_fetch' },
      });
      expect(firstError(others)).to.include({
        message: "You don't have permission to do this",
        code: 'unauthorized',
        status_code: 403,
      });
      expect(others.body.data).to.deep.equal({ fetchPerson: null });
      const unknown = await gql(server, D.FetchPerson!, {
        token: ada.token,
        variables: { username: 'nobody_here' },
      });
      expect(firstError(unknown).message).to.equal('Person with username nobody_here not found');
      const anonymous = await gql(server, D.FetchPerson!, { variables: { username: 'ada_fetch' } });
      expect(firstError(anonymous)).to.include({ status_code: 401 });
    });
  });
});
