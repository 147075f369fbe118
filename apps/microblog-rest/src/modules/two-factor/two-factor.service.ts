import { QueryTypes, type Sequelize } from 'sequelize';
import {
  consumeRecoveryCode,
  createTotpEnrollment,
  generateRecoveryCodes,
  hashRecoveryCode,
  verifyTotp,
  type UserStore,
} from '@agora/auth';
import { NotFound } from '@agora/core';
import type { SecretBox } from '../sessions/keys.js';

export interface TwoFactorEnablement {
  /** Base32 TOTP secret (shown once, for manual entry). */
  secret: string;
  /** `otpauth://` URI for the QR code. */
  uri: string;
  /** Ten single-use codes, shown once; only their hashes are kept. */
  recoveryCodes: string[];
}

interface TwoFactorRow {
  totp_secret_encrypted: Buffer;
  last_used_step: number | null;
  recovery_code_hashes: string[];
}

/** TOTP two-factor sign-in of local accounts; state lives in `user_two_factor`, one row per enabled user. */
export class TwoFactorService {
  constructor(
    private readonly deps: { sequelize: Sequelize; users: UserStore; box: SecretBox; issuer: string },
  ) {}

  /** Enables (or re-enables, replacing secret and codes) two-factor sign-in for a user. */
  async enableTwoFactor(userId: string): Promise<TwoFactorEnablement> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw new NotFound('Record not found');
    const { secret, uri } = createTotpEnrollment({ issuer: this.deps.issuer, accountName: user.email });
    const recoveryCodes = generateRecoveryCodes();
    await this.deps.sequelize.query(
      `INSERT INTO user_two_factor (user_id, totp_secret_encrypted, last_used_step, recovery_code_hashes, enabled_at)
       VALUES ($1, $2, NULL, $3, now())
       ON CONFLICT (user_id) DO UPDATE SET totp_secret_encrypted = EXCLUDED.totp_secret_encrypted,
         last_used_step = NULL, recovery_code_hashes = EXCLUDED.recovery_code_hashes, enabled_at = now()`,
      { bind: [userId, this.deps.box.seal(secret), recoveryCodes.map(hashRecoveryCode)] },
    );
    return { secret, uri, recoveryCodes };
  }

  async disableTwoFactor(userId: string): Promise<void> {
    await this.deps.sequelize.query('DELETE FROM user_two_factor WHERE user_id = $1', { bind: [userId] });
  }

  async isEnabled(userId: string): Promise<boolean> {
    const rows = await this.deps.sequelize.query('SELECT 1 FROM user_two_factor WHERE user_id = $1', {
      bind: [userId],
      type: QueryTypes.SELECT,
    });
    return rows.length > 0;
  }

  /**
   * Checks a sign-in's second factor: a TOTP code (each time step accepted once) or a recovery code
   * (spent on use). The row is locked so two concurrent uses of one code cannot both pass.
   */
  async verify(userId: string, attempt: string): Promise<boolean> {
    return this.deps.sequelize.transaction(async (transaction) => {
      const [row] = await this.deps.sequelize.query<TwoFactorRow>(
        `SELECT totp_secret_encrypted, last_used_step, recovery_code_hashes
           FROM user_two_factor WHERE user_id = $1 FOR UPDATE`,
        { bind: [userId], type: QueryTypes.SELECT, transaction },
      );
      if (!row) return false;
      const secret = this.deps.box.open(row.totp_secret_encrypted);
      if (secret !== undefined) {
        const check = verifyTotp(secret, attempt, { lastUsedStep: row.last_used_step });
        if (check.ok && check.step !== null) {
          await this.deps.sequelize.query(
            'UPDATE user_two_factor SET last_used_step = $2 WHERE user_id = $1',
            {
              bind: [userId, check.step],
              transaction,
            },
          );
          return true;
        }
      }
      const recovery = consumeRecoveryCode(row.recovery_code_hashes, attempt);
      if (!recovery.ok) return false;
      await this.deps.sequelize.query(
        'UPDATE user_two_factor SET recovery_code_hashes = $2 WHERE user_id = $1',
        { bind: [userId, recovery.remaining], transaction },
      );
      return true;
    });
  }
}
