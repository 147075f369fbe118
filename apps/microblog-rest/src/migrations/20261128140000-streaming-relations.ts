import { notifyChannelName } from '@agora/core';
import type { Migration } from '@agora/db';

/** The streaming channel as it was when this migration was written (ADR 0034). */
const STREAMING_CHANNEL = 'microblog:streaming';

/**
 * The streaming hub keeps, per connected account, its blocks, mutes and domain blocks in memory
 * (ADR 0043). Every committed change to those tables is told on the streaming channel by a trigger,
 * whichever path wrote it (API, inbox, cascades): `{"e":"relations","a":<account>,"t":<target>}`,
 * and each process reloads what it holds of those two accounts. Filtering an event's viewers also
 * asks who has a flag on a status (favourite, bookmark, pin, reblog, conversation mute, vote):
 * conversation mutes get the index by conversation that this needs.
 */
export const streamingRelations: Migration = {
  name: '20261128140000-streaming-relations',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE FUNCTION streaming_relations_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changed jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      BEGIN
        PERFORM pg_notify(TG_ARGV[0], json_build_object(
          'e', 'relations', 'a', changed->>'account_id', 't', changed->>'target_account_id')::text);
        RETURN NULL;
      END
      $$`);
    const channel = notifyChannelName(STREAMING_CHANNEL);
    for (const table of ['blocks', 'mutes', 'account_domain_blocks']) {
      await sequelize.query(
        `CREATE TRIGGER ${table}_streaming AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION streaming_relations_changed('${channel}')`,
      );
    }
    await sequelize.query(
      'CREATE INDEX conversation_mutes_conversation_idx ON conversation_mutes (conversation_id)',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX conversation_mutes_conversation_idx');
    for (const table of ['blocks', 'mutes', 'account_domain_blocks']) {
      await sequelize.query(`DROP TRIGGER ${table}_streaming ON ${table}`);
    }
    await sequelize.query('DROP FUNCTION streaming_relations_changed()');
  },
};
