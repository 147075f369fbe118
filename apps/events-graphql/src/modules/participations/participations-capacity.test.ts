import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!) {
  createEvent(organizerActorId: $organizerActorId, title: "Ten seats", description: "", beginsOn: "2030-01-01T10:00:00Z",
    options: { maximumAttendeeCapacity: 10 }) { id uuid } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id role } }`;
const STATS = `query($uuid: UUID!) { event(uuid: $uuid) { participantStats { participant }
  options { remainingAttendeeCapacity } } }`;

// not-shown.md §6.2 under load: the capacity check and the insert are one step per event.
describe('participation capacity under concurrent joins', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('participation-capacity', { TRUST_PROXY: 'true' });
  });
  after(() => server?.stop());

  it('admits exactly 10 of 50 simultaneous joins on a capacity of 10', async () => {
    const profiles = await Promise.all(
      Array.from({ length: 51 }, async (_, index) => {
        const { token } = await signedInAccount(server, `seat${index}@example.org`);
        const { id } = ok<{ id: string }>(
          await gql(server, CREATE_PERSON, { token, variables: { preferredUsername: `seat${index}` } }),
          'createPerson',
        );
        return { token, profileId: id };
      }),
    );
    const [organizer, ...people] = profiles;
    const event = ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer!.token,
        variables: { organizerActorId: organizer!.profileId },
      }),
      'createEvent',
    );

    const answers = await Promise.all(
      people.map((person) =>
        gql(server, JOIN, {
          token: person.token,
          variables: { eventId: event.id, actorId: person.profileId },
        }),
      ),
    );
    const admitted = answers.filter((answer) => answer.body.data?.joinEvent);
    const refused = answers.flatMap((answer) => answer.body.errors ?? []);
    expect(admitted).to.have.lengthOf(10);
    expect(refused).to.have.lengthOf(40);
    expect(new Set(refused.map((error) => error.message))).to.deep.equal(
      new Set(['The event has already reached its maximum capacity']),
    );

    const [stored] = await server.ctx.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participants WHERE event_id = :eventId AND role = 'PARTICIPANT'`,
      { type: QueryTypes.SELECT, replacements: { eventId: event.id } },
    );
    expect(stored!.n).to.equal(10);
    expect(ok(await gql(server, STATS, { variables: { uuid: event.uuid } }), 'event')).to.deep.equal({
      participantStats: { participant: 10 },
      options: { remainingAttendeeCapacity: 0 },
    });
  });
});
