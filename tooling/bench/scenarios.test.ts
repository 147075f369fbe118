import { expect } from 'chai';
import { FULL_CONFIG_QUERY } from '@agora/events-graphql';
import { EVENTS_POLICIES, MICROBLOG_POLICIES } from '@agora/auth';
import {
  SCENARIOS,
  boundedNote,
  boundedPlanProblems,
  expectGraphQLData,
  expectJsonField,
  formatPolicy,
  selectScenarios,
  splitAcrossRounds,
  type BoundedMeasure,
} from './scenarios.js';

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
      const search = expectJsonField('statuses', 'array', 2);
      expect(search(200, '{"statuses":[{},{}]}')).to.equal(undefined);
      expect(search(200, '{"statuses":[{}]}')).to.equal('"statuses" has 1 elements, expected 2');
      expect(search(200, '{"statuses":{}}')).to.equal('"statuses" is object, expected array');
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
      'events-logged-user',
      'microblog-verify-app',
      'microblog-verify-account',
      'events-login',
      'events-fetch-event',
      'events-group-page',
      'events-join-event',
      'microblog-home-timeline',
      'microblog-search-statuses',
      'microblog-post-status',
      'microblog-token-password',
    ]);
    expect(
      selectScenarios(SCENARIOS, ['events-login', 'MICROBLOG APPS VERIFY_CREDENTIALS']).map((s) => s.id),
    ).to.deep.equal(['microblog-verify-app', 'events-login']);
    expect(selectScenarios(SCENARIOS, ['Events Config']).map((s) => s.id)).to.deep.equal(['events-config']);
    expect(selectScenarios(SCENARIOS, ['express'])).to.deep.equal([]);
    expect(() => selectScenarios(SCENARIOS, ['nope'])).to.throw(/unknown scenario\(s\): nope/);
  });

  describe('bounded (rate-limited) scenarios', () => {
    const login: BoundedMeasure = {
      requests: 8,
      users: 3,
      perIp: EVENTS_POLICIES.login.ip,
      perEmail: EVENTS_POLICIES.login.email,
    };

    it('every bounded scenario stays under the limits it is measured against', () => {
      const bounded = SCENARIOS.filter((s) => s.bounded);
      expect(bounded.map((s) => s.id)).to.deep.equal(['events-login', 'microblog-token-password']);
      for (const scenario of bounded) {
        expect(boundedPlanProblems(scenario.bounded!), scenario.id).to.deep.equal([]);
        expect(scenario.bounded!.requests, scenario.id).to.be.at.most(10);
      }
      expect(SCENARIOS.find((s) => s.id === 'microblog-token-password')?.bounded?.perIp).to.equal(
        MICROBLOG_POLICIES.loginsIp,
      );
    });

    it('refuses a plan whose requests (probe included) would reach 429', () => {
      expect(boundedPlanProblems({ ...login, requests: 10 })).to.deep.equal([
        '11 requests exceed events.login.ip (10 per 1 min)',
      ]);
      expect(boundedPlanProblems({ ...login, users: 1 })).to.deep.equal([
        '9 requests per user exceed events.login.email (5 per 1 min)',
      ]);
    });

    it('says why the figures are no saturated rate', () => {
      expect(formatPolicy(MICROBLOG_POLICIES.loginsEmail)).to.equal('25 per 1 h');
      expect(formatPolicy({ name: 'x', limit: 3, windowSeconds: 90 })).to.equal('3 per 90 s');
      expect(boundedNote(login)).to.match(/per-IP limit \(10 per 1 min, 0\.17 req\/s\)/);
      expect(boundedNote(login)).to.contain('8 sequential requests over 3 users');
    });

    it('splits the requests across rounds as evenly as possible', () => {
      expect(splitAcrossRounds(8, 2)).to.deep.equal([4, 4]);
      expect(splitAcrossRounds(10, 3)).to.deep.equal([4, 3, 3]);
      expect(splitAcrossRounds(2, 4)).to.deep.equal([1, 1, 0, 0]);
    });
  });
});
