import type { Migration } from '@agora/db';
import { createAnswerGeneration, dropAnswerGeneration } from './answer-generation.js';

/** What the cached event page shows, table by table; actors only for the columns it shows. */
const TABLES = [
  'events',
  'events_tags',
  'tags',
  'addresses',
  'event_contacts',
  'event_participant_stats',
  'actor_pictures',
  'media',
];
const ACTOR_COLUMNS = ['type', 'username', 'domain', 'url', 'display_name', 'summary', 'suspended_at'];

/**
 * The counter of the cached event page (ADR 0028), bumped once at the commit of every transaction
 * that writes what it shows (`createAnswerGeneration`).
 */
export const eventAnswerGeneration: Migration = {
  name: '20261127130000-event-answer-generation',
  async up({ sequelize }) {
    await createAnswerGeneration(sequelize, 'event', TABLES, ACTOR_COLUMNS);
  },
  async down({ sequelize }) {
    await dropAnswerGeneration(sequelize, 'event', TABLES);
  },
};
