import type { Sequelize } from 'sequelize';

/**
 * A whole-answer cache's counter (ADR 0028, ADR 0046): table `<name>_answer_generation` with one row,
 * bumped once by every transaction that writes one of `tables` (or `actorColumns` of `actors`), at
 * its commit, whoever wrote (a resolver, a job, federation, the admin CLI, plain SQL). Deferred
 * constraint triggers run at commit, after the transaction took every other lock, so waiting for the
 * counter's row can never close a cycle; a transaction-local setting makes the second and later rows
 * of a transaction cost a function call only. Migrations create their counters through this, so
 * each cache's triggers are the same; a cache adds its own triggers after it (`answersChanged`).
 */
export async function createAnswerGeneration(
  sequelize: Sequelize,
  name: string,
  tables: readonly string[],
  actorColumns: readonly string[],
): Promise<void> {
  await sequelize.query(`CREATE TABLE ${name}_answer_generation (
      single boolean PRIMARY KEY DEFAULT true CONSTRAINT ${name}_answer_generation_single CHECK (single),
      value bigint NOT NULL DEFAULT 0
    )`);
  await sequelize.query(`INSERT INTO ${name}_answer_generation DEFAULT VALUES`);
  await sequelize.query(`CREATE FUNCTION ${answersChanged(name)}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('agora.${name}_answers_bumped', true) IS DISTINCT FROM 'yes' THEN
        UPDATE ${name}_answer_generation SET value = value + 1;
        PERFORM set_config('agora.${name}_answers_bumped', 'yes', true);
      END IF;
      RETURN NULL;
    END
    $$`);
  for (const table of tables) {
    await sequelize.query(`CREATE CONSTRAINT TRIGGER ${table}_${name}_answers_changed
      AFTER INSERT OR UPDATE OR DELETE ON ${table} DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${answersChanged(name)}()`);
  }
  await sequelize.query(`CREATE CONSTRAINT TRIGGER actors_${name}_answers_changed
    AFTER UPDATE OF ${actorColumns.join(', ')} OR DELETE ON actors DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ${answersChanged(name)}()`);
}

/** Drops what `createAnswerGeneration` made (a cache drops its own extra triggers first). */
export async function dropAnswerGeneration(
  sequelize: Sequelize,
  name: string,
  tables: readonly string[],
): Promise<void> {
  for (const table of [...tables, 'actors']) {
    await sequelize.query(`DROP TRIGGER ${table}_${name}_answers_changed ON ${table}`);
  }
  await sequelize.query(`DROP FUNCTION ${answersChanged(name)}()`);
  await sequelize.query(`DROP TABLE ${name}_answer_generation`);
}

/** The trigger function of counter `name`. */
export const answersChanged = (name: string) => `${name}_answers_changed`;
