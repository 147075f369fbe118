import { isAppError } from '@agora/core';
import type { UserStore } from '@agora/auth';
import type { PasswordVerifier } from './oauth.service.js';

/**
 * The password grant over the users store: its refusals (unknown, unconfirmed, disabled, wrong
 * password, no password) all become `invalid`, except an unconfirmed account, which is named as such.
 */
export function userPasswordVerifier(users: UserStore): PasswordVerifier {
  return {
    async verify(email, password) {
      try {
        const user = await users.authenticate(email, password);
        return { ok: true, userId: user.id };
      } catch (error) {
        if (!isAppError(error) || error.status >= 500) throw error;
        const known = await users.findByEmail(email);
        const unconfirmed = known !== null && known.confirmedAt === null && !known.disabled;
        return { ok: false, reason: unconfirmed ? 'unconfirmed' : 'invalid' };
      }
    },
  };
}
