import type { Migration } from '@agora/db';

/**
 * Preview cards of the first link of a status (issue 16 §3) and Web Push subscriptions, one per
 * access token (issue 16 §4). A card is shared by every status linking its URL; the image is a local
 * copy made through the remote-media cache (`remote_media_files` owns its file keys).
 */
export const previewCardsAndWebPush: Migration = {
  name: '20261127148000-preview-cards-and-web-push',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE preview_cards (
        id bigserial PRIMARY KEY,
        url text NOT NULL UNIQUE,
        title text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        type text NOT NULL DEFAULT 'link' CHECK (type IN ('link', 'photo', 'video', 'rich')),
        author_name text NOT NULL DEFAULT '',
        author_url text NOT NULL DEFAULT '',
        provider_name text NOT NULL DEFAULT '',
        provider_url text NOT NULL DEFAULT '',
        html text NOT NULL DEFAULT '',
        width integer NOT NULL DEFAULT 0,
        height integer NOT NULL DEFAULT 0,
        embed_url text NOT NULL DEFAULT '',
        image_remote_url text,
        image_url text,
        language text,
        published_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query(`
      CREATE TABLE status_preview_cards (
        status_id bigint PRIMARY KEY REFERENCES statuses (id) ON DELETE CASCADE,
        preview_card_id bigint NOT NULL REFERENCES preview_cards (id) ON DELETE CASCADE
      )`);
    await sequelize.query('CREATE INDEX status_preview_cards_card ON status_preview_cards (preview_card_id)');
    await sequelize.query(`
      CREATE TABLE web_push_subscriptions (
        id bigserial PRIMARY KEY,
        access_token_id bigint NOT NULL UNIQUE REFERENCES oauth_access_tokens (id) ON DELETE CASCADE,
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        endpoint text NOT NULL,
        key_p256dh text NOT NULL,
        key_auth text NOT NULL,
        standard boolean NOT NULL DEFAULT false,
        alerts jsonb NOT NULL DEFAULT '{}',
        policy text NOT NULL DEFAULT 'all' CHECK (policy IN ('all', 'followed', 'follower', 'none')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query(
      'CREATE INDEX web_push_subscriptions_account ON web_push_subscriptions (account_id)',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE web_push_subscriptions');
    await sequelize.query('DROP TABLE status_preview_cards');
    await sequelize.query('DROP TABLE preview_cards');
  },
};
