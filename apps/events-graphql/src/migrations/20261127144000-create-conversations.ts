import type { Migration } from '@agora/db';

/**
 * Private conversations (issue 14 §9, the 5.x API): a conversation is a thread of PRIVATE comments
 * (`comments.conversation_id`) between participants (profiles, or a group organizing an event). Each
 * participant has a row of its own carrying what is personal: read or unread, hidden or not.
 */
export const createConversations: Migration = {
  name: '20261127144000-create-conversations',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE conversations (
        id bigserial PRIMARY KEY,
        event_id bigint REFERENCES events (id) ON DELETE SET NULL,
        origin_comment_id bigint,
        last_comment_id bigint,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Event.conversations: an event's conversations.
    await sequelize.query(
      'CREATE INDEX conversations_event_idx ON conversations (event_id) WHERE event_id IS NOT NULL',
    );
    await sequelize.query(`
      ALTER TABLE comments ADD COLUMN conversation_id bigint REFERENCES conversations (id) ON DELETE CASCADE`);
    // Conversation.comments, oldest first.
    await sequelize.query(`CREATE INDEX comments_conversation_idx ON comments (conversation_id, published_at, id)
      WHERE conversation_id IS NOT NULL`);
    // Written after the comment they name (the comment carries the conversation's id first).
    await sequelize.query(`
      ALTER TABLE conversations
        ADD CONSTRAINT conversations_origin_comment_fkey
          FOREIGN KEY (origin_comment_id) REFERENCES comments (id) ON DELETE SET NULL,
        ADD CONSTRAINT conversations_last_comment_fkey
          FOREIGN KEY (last_comment_id) REFERENCES comments (id) ON DELETE SET NULL`);
    await sequelize.query(
      'CREATE INDEX conversations_origin_comment_idx ON conversations (origin_comment_id)',
    );
    await sequelize.query('CREATE INDEX conversations_last_comment_idx ON conversations (last_comment_id)');

    await sequelize.query(`
      CREATE TABLE conversation_participants (
        id bigserial PRIMARY KEY,
        conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        unread boolean NOT NULL DEFAULT true,
        hidden boolean NOT NULL DEFAULT false,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT conversation_participants_key UNIQUE (conversation_id, actor_id)
      )`);
    // A profile's conversations, unread first, then the latest first (Person/User.conversations).
    await sequelize.query(`CREATE INDEX conversation_participants_actor_idx
      ON conversation_participants (actor_id, unread DESC, updated_at DESC, id DESC) WHERE NOT hidden`);
    // unreadConversationsCount.
    await sequelize.query(`CREATE INDEX conversation_participants_unread_idx
      ON conversation_participants (actor_id) WHERE unread AND NOT hidden`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE conversation_participants');
    await sequelize.query('ALTER TABLE comments DROP COLUMN conversation_id');
    await sequelize.query('DROP TABLE conversations');
  },
};
