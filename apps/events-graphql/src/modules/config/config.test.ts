import { expect } from 'chai';
import { BadInput } from '@agora/core';
import { graphql, startTestServer, type TestServer } from '../../testing/test-server.js';
import { FULL_CONFIG_QUERY } from '../../graphql/web-client-documents.js';

/** Every field of `Config` in the current reference schema, each sub-object fully selected. */
const EVERY_FIELD = `{
  config {
    analytics { id enabled configuration { key value type } }
    anonymous {
      actorId
      eventCreation { allowed validation { captcha { enabled } email { enabled confirmationRequired } } }
      participation { allowed validation { captcha { enabled } email { enabled confirmationRequired } } }
      reports { allowed }
    }
    auth { databaseLogin ldap oauthProviders { id label } }
    contact countryCode
    defaultPicture { id url name alt contentType size metadata { width height blurhash } }
    demoMode description durationOfLongEvent
    eventCategories { id label }
    exportFormats { eventParticipants }
    features { antispam eventCreation eventExternal groups }
    federating
    geocoding { autocomplete provider }
    instanceFeeds { enabled }
    instanceLogo { url }
    languages
    location { latitude longitude }
    longDescription longEvents
    maps { routing { type } tiles { attribution endpoint } }
    name primaryColor
    privacy { bodyHtml type url }
    registrationsAllowlist registrationsOpen
    resourceProviders { endpoint software type }
    restrictions { onlyAdminCanCreateGroups onlyGroupsCanCreateEvents }
    rules
    search { global { isDefault isEnabled } }
    secondaryColor slogan
    terms { bodyHtml type url }
    timezones
    uploadLimits { avatar banner default }
    version
    webPush { enabled publicKey }
  }
}`;

const REFERENCE_CONFIG_FIELDS = [
  'analytics',
  'anonymous',
  'auth',
  'contact',
  'countryCode',
  'defaultPicture',
  'demoMode',
  'description',
  'durationOfLongEvent',
  'eventCategories',
  'exportFormats',
  'features',
  'federating',
  'geocoding',
  'instanceFeeds',
  'instanceLogo',
  'languages',
  'location',
  'longDescription',
  'longEvents',
  'maps',
  'name',
  'primaryColor',
  'privacy',
  'registrationsAllowlist',
  'registrationsOpen',
  'resourceProviders',
  'restrictions',
  'rules',
  'search',
  'secondaryColor',
  'slogan',
  'terms',
  'timezones',
  'uploadLimits',
  'version',
  'webPush',
];

type Config = Record<string, unknown> & {
  name: string;
  timezones: string[];
  eventCategories: Array<{ id: string; label: string }>;
  terms: { type: string; url: string | null; bodyHtml: string | null };
  privacy: { type: string; url: string | null; bodyHtml: string | null };
};

async function fetchConfig(url: string, query = EVERY_FIELD): Promise<Config> {
  const { status, body } = await graphql<{ config: Config }>(url, query);
  expect(status).to.equal(200);
  expect(body.errors).to.equal(undefined);
  return body.data!.config;
}

describe('config', () => {
  describe('with the default configuration', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('config-defaults');
    });
    after(() => server?.stop());

    it('answers every field of the reference Config with its defaults', async () => {
      const config = await fetchConfig(server.url);
      expect(Object.keys(config).sort()).to.deep.equal(REFERENCE_CONFIG_FIELDS);
      expect(config).to.deep.include({
        name: 'My Agora Instance',
        description: 'Change this to a proper description of your instance',
        longDescription: null,
        slogan: null,
        contact: null,
        rules: null,
        languages: [],
        registrationsOpen: false,
        registrationsAllowlist: false,
        demoMode: false,
        federating: true,
        countryCode: null,
        location: null,
        instanceLogo: null,
        defaultPicture: null,
        primaryColor: null,
        secondaryColor: null,
        longEvents: true,
        durationOfLongEvent: 30,
        analytics: [],
        resourceProviders: [],
        version: '0.1.0',
      });
      expect(config.uploadLimits).to.deep.equal({
        default: 10_485_760,
        avatar: 2_097_152,
        banner: 4_194_304,
      });
      // The instance's anonymous actor: a Person of nobody's, the same in every process.
      const anonymous = await server.ctx.actors.findById(
        String((config.anonymous as { actorId: string }).actorId),
      );
      expect(anonymous).to.deep.include({
        username: 'anonymous',
        type: 'Person',
        userId: null,
        domain: null,
      });
      expect(config.anonymous).to.deep.equal({
        actorId: anonymous!.id,
        participation: {
          allowed: true,
          validation: { captcha: { enabled: false }, email: { enabled: true, confirmationRequired: true } },
        },
        eventCreation: {
          allowed: false,
          validation: { captcha: { enabled: false }, email: { enabled: true, confirmationRequired: true } },
        },
        reports: { allowed: false },
      });
      expect(config.maps).to.deep.equal({
        routing: { type: 'OPENSTREETMAP' },
        tiles: {
          attribution: '© The OpenStreetMap Contributors',
          endpoint: 'https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png',
        },
      });
      expect(config.geocoding).to.deep.equal({ autocomplete: false, provider: 'nominatim' });
      expect(config.features).to.deep.equal({
        antispam: false,
        eventCreation: true,
        eventExternal: true,
        groups: true,
      });
      expect(config.restrictions).to.deep.equal({
        onlyAdminCanCreateGroups: false,
        onlyGroupsCanCreateEvents: false,
      });
      expect(config.auth).to.deep.equal({ databaseLogin: true, ldap: false, oauthProviders: [] });
      expect(config.instanceFeeds).to.deep.equal({ enabled: false });
      expect(config.webPush).to.deep.equal({ enabled: false, publicKey: null });
      expect(config.exportFormats).to.deep.equal({ eventParticipants: ['csv'] });
      expect(config.search).to.deep.equal({ global: { isDefault: false, isEnabled: false } });
    });

    it('lists the 30 event categories with the EventCategory ids and labels', async () => {
      const { eventCategories } = await fetchConfig(server.url);
      expect(eventCategories).to.have.length(30);
      expect(eventCategories[0]).to.deep.equal({ id: 'ARTS', label: 'Arts' });
      expect(eventCategories).to.deep.include({ id: 'FOOD_DRINK', label: 'Food & Drink' });
      expect(eventCategories.at(-1)).to.deep.equal({ id: 'MEETING', label: 'Meeting' });
      expect(new Set(eventCategories.map((category) => category.id)).size).to.equal(30);
    });

    it('lists IANA time zones', async () => {
      const { timezones } = await fetchConfig(server.url);
      expect(timezones).to.include.members(['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC']);
      expect(timezones.length).to.be.greaterThan(300);
    });

    it('serves the default terms and privacy policy, naming the instance, for any locale', async () => {
      const { body } = await graphql<{ config: Config }>(
        server.url,
        'query Legal($locale: String) { config { terms(locale: $locale) { type url bodyHtml } privacy { type url bodyHtml } } }',
        { variables: { locale: 'fr' } },
      );
      const { terms, privacy } = body.data!.config;
      expect(terms.type).to.equal('DEFAULT');
      expect(terms.url).to.equal(null);
      expect(terms.bodyHtml).to.contain('My Agora Instance').and.contain('Contact information not filled');
      expect(privacy.type).to.equal('DEFAULT');
      expect(privacy.bodyHtml).to.contain('My Agora Instance');
    });

    it('answers the web client’s FullConfig query', async () => {
      const config = await fetchConfig(server.url, FULL_CONFIG_QUERY);
      expect(config.__typename).to.equal('Config');
      expect(config.name).to.equal('My Agora Instance');
      expect(config.eventCategories).to.have.length(30);
    });
  });

  describe('from the environment and stored settings', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('config-settings', {
        INSTANCE_NAME: 'Climate Meetups',
        INSTANCE_DESCRIPTION: 'Where the local climate groups meet',
        REGISTRATIONS_OPEN: 'true',
        REGISTRATION_EMAIL_ALLOWLIST: 'example.org',
        INSTANCE_LANGUAGES: 'fr,en',
        UPLOAD_LIMIT_BYTES: '5000000',
        ANONYMOUS_REPORTS: 'true',
        MAPS_ROUTING_TYPE: 'GOOGLE_MAPS',
        WEB_PUSH_PUBLIC_KEY: 'BPublicKey',
        LONG_EVENT_DAYS: '0',
        EXPORT_FORMATS: 'csv,ods',
      });
    });
    after(() => server?.stop());

    it('reflects the environment', async () => {
      const config = await fetchConfig(server.url);
      expect(config).to.deep.include({
        name: 'Climate Meetups',
        description: 'Where the local climate groups meet',
        registrationsOpen: true,
        registrationsAllowlist: true,
        languages: ['fr', 'en'],
        longEvents: false,
        durationOfLongEvent: 0,
      });
      expect(config.uploadLimits).to.deep.include({ default: 5_000_000 });
      expect(config.anonymous).to.deep.include({ reports: { allowed: true } });
      expect(config.maps).to.deep.include({ routing: { type: 'GOOGLE_MAPS' } });
      expect(config.webPush).to.deep.equal({ enabled: true, publicKey: 'BPublicKey' });
      expect(config.exportFormats).to.deep.equal({ eventParticipants: ['csv', 'ods'] });
    });

    it('applies stored settings over the environment at once, and reverts when they are removed', async () => {
      await server.ctx.instanceConfig.save({
        instanceName: 'Climate Meetups Paris',
        instanceSlogan: 'Act locally',
        contact: 'admin@example.org',
        registrationsOpen: false,
        instanceLanguages: ['fr'],
        instanceTermsType: 'URL',
        instanceTermsUrl: 'https://example.org/terms',
        instancePrivacyPolicyType: 'CUSTOM',
        instancePrivacyPolicy: '<p>Our own policy</p>',
        primaryColor: '#123456',
      });
      let config = await fetchConfig(server.url);
      expect(config).to.deep.include({
        name: 'Climate Meetups Paris',
        slogan: 'Act locally',
        contact: 'admin@example.org',
        registrationsOpen: false,
        languages: ['fr'],
        primaryColor: '#123456',
      });
      expect(config.terms).to.deep.equal({ type: 'URL', url: 'https://example.org/terms', bodyHtml: null });
      expect(config.privacy).to.deep.equal({ type: 'CUSTOM', url: null, bodyHtml: '<p>Our own policy</p>' });

      await server.ctx.instanceConfig.save({ instanceName: null, instanceTermsType: 'DEFAULT' });
      config = await fetchConfig(server.url);
      expect(config.name).to.equal('Climate Meetups');
      expect(config.terms.type).to.equal('DEFAULT');
      expect(config.terms.bodyHtml).to.contain('Climate Meetups').and.contain('mailto:admin@example.org');
    });

    it('reaches the other processes of the service through the database', async () => {
      const other = await server.sibling();
      expect((await fetchConfig(other.url)).name).to.equal((await fetchConfig(server.url)).name);
      const changed = new Promise<void>((resolve) => {
        const stop = other.ctx.instanceConfig.onChange((config) => {
          if (config.name === 'Renamed elsewhere') {
            stop();
            resolve();
          }
        });
      });
      await server.ctx.instanceConfig.save({ instanceName: 'Renamed elsewhere' });
      await changed;
      expect((await fetchConfig(other.url)).name).to.equal('Renamed elsewhere');
    });

    it('refuses a setting of the wrong type', async () => {
      let error: unknown;
      try {
        await server.ctx.instanceConfig.save({ registrationsOpen: 'yes' as unknown as boolean });
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(BadInput);
      expect((error as BadInput).fields).to.have.keys('registrationsOpen');
      const unknown = await server.ctx.instanceConfig
        .save({ nope: 'x' } as never)
        .catch((caught: unknown) => caught);
      expect(unknown).to.be.instanceOf(BadInput);
      expect((await fetchConfig(server.url)).registrationsOpen).to.equal(false);
    });

    it('ignores a stored value of the wrong shape, keeping the default', async () => {
      await server.ctx.sequelize.query(
        `INSERT INTO admin_settings (key, value) VALUES ('instanceLanguages', '"fr"'), ('unknownKey', '1')
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      );
      await server.ctx.instanceConfig.reload();
      expect((await fetchConfig(server.url)).languages).to.deep.equal(['fr', 'en']);
    });
  });
});
