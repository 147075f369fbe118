export { defineUserModel, type UserModel, type UserInstance, type UserRow } from './user.model.js';
export {
  UserStore,
  toUser,
  isUserId,
  type User,
  type SessionUser,
  type UserRef,
  type CreateUserInput,
  type UserWithToken,
  type UserStoreOptions,
  type EmailChangeAuthorisation,
} from './user.store.js';
export {
  canResend,
  secondsUntilResend,
  generateToken,
  hashToken,
  RESEND_INTERVAL_SECONDS,
  UNCONFIRMED_GRACE_PERIOD_HOURS,
} from './user.tokens.js';
export { normalizeEmail, isValidEmail, EMAIL_MAX_LENGTH, EMAIL_MIN_LENGTH } from './email-address.js';
export { isEmailTaken, USER_MESSAGES, refused } from './user.errors.js';
