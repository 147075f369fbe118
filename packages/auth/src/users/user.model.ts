import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { Role } from '../roles/roles.js';

/** One row of `users` (see migrations/20261122100100-users.ts); ids are bigint, read as strings. */
export interface UserRow {
  id: string;
  email: string;
  passwordHash: string | null;
  role: Role;
  locale: string;
  provider: string | null;
  disabled: boolean;
  confirmedAt: Date | null;
  confirmationSentAt: Date | null;
  confirmationTokenHash: string | null;
  resetPasswordSentAt: Date | null;
  resetPasswordTokenHash: string | null;
  unconfirmedEmail: string | null;
  emailChangeSentAt: Date | null;
  emailChangeTokenHash: string | null;
  lastSignInAt: Date | null;
  lastSignInIp: string | null;
  currentSignInAt: Date | null;
  currentSignInIp: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type UserCreationRow = Partial<UserRow> & Pick<UserRow, 'email'>;
export type UserInstance = Model<UserRow, UserCreationRow>;
export type UserModel = ModelStatic<UserInstance>;

// Functions, not shared objects: Sequelize writes each column's `field` into its attribute object.
const nullableDate = () => ({ type: DataTypes.DATE, allowNull: true });
const nullableText = () => ({ type: DataTypes.TEXT, allowNull: true });

/**
 * Defines `User` on this Sequelize instance (once: a second call returns the same model), so each
 * AppContext has its own and apps can associate their per-user tables with it.
 */
export function defineUserModel(sequelize: Sequelize): UserModel {
  if (sequelize.isDefined('User')) return sequelize.model('User') as UserModel;
  return sequelize.define<UserInstance>(
    'User',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      email: { type: DataTypes.TEXT, allowNull: false },
      passwordHash: nullableText(),
      role: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'USER' },
      locale: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'en' },
      provider: nullableText(),
      disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      confirmedAt: nullableDate(),
      confirmationSentAt: nullableDate(),
      confirmationTokenHash: nullableText(),
      resetPasswordSentAt: nullableDate(),
      resetPasswordTokenHash: nullableText(),
      unconfirmedEmail: nullableText(),
      emailChangeSentAt: nullableDate(),
      emailChangeTokenHash: nullableText(),
      lastSignInAt: nullableDate(),
      lastSignInIp: nullableText(),
      currentSignInAt: nullableDate(),
      currentSignInIp: nullableText(),
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'users', underscored: true, timestamps: true },
  );
}
