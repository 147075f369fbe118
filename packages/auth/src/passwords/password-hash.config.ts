import { z } from 'zod';
import { DEFAULT_PASSWORD_HASH_PARAMS, type PasswordHashParams } from './password-hash.js';

/** How much work each password hash costs: the production parameters, or cheap ones for test servers. */
export type PasswordHashCost = 'production' | 'test';

/**
 * Argon2id at its lowest sensible cost (one pass over 1 MiB): about a millisecond instead of about a
 * hundred, for test servers only. Hashes carry their parameters, so both kinds verify under either.
 */
export const TEST_PASSWORD_HASH_PARAMS: Readonly<PasswordHashParams> = Object.freeze({
  timeCost: 1,
  memoryCost: 1024,
  parallelism: 1,
});

/**
 * `PASSWORD_HASH_COST` for a service's zod schema (`production` by default); pair it with
 * `checkPasswordHashCostEnv` in the schema's `superRefine`.
 */
export function passwordHashCostEnv() {
  return { PASSWORD_HASH_COST: z.enum(['production', 'test']).default('production') };
}

/** Refuses the test cost outside NODE_ENV=test, so no deployment can weaken its hashes by accident. */
export function checkPasswordHashCostEnv(
  env: { NODE_ENV: string; PASSWORD_HASH_COST: PasswordHashCost },
  issues: z.RefinementCtx,
): void {
  if (env.PASSWORD_HASH_COST === 'test' && env.NODE_ENV !== 'test') {
    issues.addIssue({
      code: 'custom',
      path: ['PASSWORD_HASH_COST'],
      message: 'test is allowed only with NODE_ENV=test',
    });
  }
}

/** The Argon2id parameters of a cost. */
export function passwordHashParams(cost: PasswordHashCost): Readonly<PasswordHashParams> {
  return cost === 'test' ? TEST_PASSWORD_HASH_PARAMS : DEFAULT_PASSWORD_HASH_PARAMS;
}
