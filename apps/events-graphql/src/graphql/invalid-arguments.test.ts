import { expect } from 'chai';
import { gql } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';

describe('malformed UUID arguments (spec not-shown.md §2.3, §6.8)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer('invalid_arguments');
  });
  after(() => server?.stop());

  const errorOf = async (query: string, variables?: Record<string, unknown>) => {
    const response = await gql(server, query, variables ? { variables } : {});
    expect(response.body.data ?? null).to.equal(null);
    const [error, ...others] = response.body.errors!;
    expect(others).to.deep.equal([]);
    return { status: response.status, error: error! };
  };

  it('answers a malformed UUID variable with the reference message', async () => {
    const { status, error } = await errorOf('query FetchEvent($uuid: UUID!) { event(uuid: $uuid) { id } }', {
      uuid: 'not-a-uuid',
    });
    expect(status).to.equal(200);
    expect(error).to.deep.include({
      message: 'Argument "uuid" has invalid value $uuid.',
      code: 'bad_user_input',
      status_code: 400,
    });
  });

  it('names the argument and the variable as the document does', async () => {
    const { error } = await errorOf('query($id: UUID!) { event(uuid: $id) { id } }', { id: '1042' });
    expect(error.message).to.equal('Argument "uuid" has invalid value $id.');
  });

  it('answers a malformed UUID literal with the reference message', async () => {
    const { status, error } = await errorOf('{ event(uuid: "not-a-uuid") { id } }');
    expect(status).to.equal(200);
    expect(error).to.deep.include({
      message: 'Argument "uuid" has invalid value "not-a-uuid".',
      code: 'graphql_validation_failed',
      status_code: 400,
    });
  });

  it('keeps graphql-js messages for other variable errors', async () => {
    const { error } = await errorOf('query($uuid: UUID!) { event(uuid: $uuid) { id } }', { uuid: null });
    expect(error.message).to.equal('Variable "$uuid" of non-null type "UUID!" must not be null.');
  });
});
