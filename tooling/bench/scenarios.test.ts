import { expect } from 'chai';
import { FULL_CONFIG_QUERY } from '@agora/events-graphql';
import { SCENARIOS, expectGraphQLData, expectJsonField, selectScenarios } from './scenarios.js';

describe('bench scenarios', () => {
  describe('response checks', () => {
    const config = expectGraphQLData('config');

    it('accepts a GraphQL response with data and no errors', () => {
      expect(config(200, JSON.stringify({ data: { config: { name: 'Agora' } } }))).to.equal(undefined);
    });

    it('rejects GraphQL errors, null data, non-JSON bodies and non-2xx statuses', () => {
      expect(config(200, JSON.stringify({ errors: [{ message: 'boom' }], data: { config: null } }))).to.match(
        /GraphQL errors: .*boom/,
      );
      expect(config(200, JSON.stringify({ data: { config: null } }))).to.equal(
        'data.config is missing or null',
      );
      expect(config(200, '<html>')).to.match(/not JSON/);
      expect(config(500, '{"errors":[]}')).to.match(/^status 500/);
    });

    it('checks the type of a top-level JSON field', () => {
      const instance = expectJsonField('uri', 'string');
      expect(instance(200, '{"uri":"localhost:3000"}')).to.equal(undefined);
      expect(instance(200, '{"uri":null}')).to.equal('"uri" is null, expected string');
      expect(instance(200, '[]')).to.equal('body is not a JSON object');
      expect(instance(404, '{"error":"Record not found"}')).to.match(/^status 404/);
    });
  });

  it('sends the web client’s full config selection, not a one-field query', () => {
    const body = JSON.parse(SCENARIOS.find((s) => s.id === 'events-config')?.request.body ?? '{}') as {
      query?: string;
    };
    expect(body.query).to.equal(FULL_CONFIG_QUERY);
    for (const field of [
      'anonymous',
      'maps',
      'uploadLimits',
      'analytics',
      'search',
      'exportFormats',
      'webPush',
    ]) {
      expect(FULL_CONFIG_QUERY).to.contain(`    ${field} {`);
    }
  });

  it('selects scenarios by id or name and refuses unknown names', () => {
    expect(selectScenarios(SCENARIOS, []).map((s) => s.id)).to.deep.equal([
      'events-config',
      'microblog-instance',
    ]);
    expect(selectScenarios(SCENARIOS, ['Events Config']).map((s) => s.id)).to.deep.equal(['events-config']);
    expect(selectScenarios(SCENARIOS, ['express'])).to.deep.equal([]);
    expect(() => selectScenarios(SCENARIOS, ['nope'])).to.throw(/unknown scenario\(s\): nope/);
  });
});
