import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

export const NOTIFICATION_PENDING = ['DIRECT', 'NONE', 'ONE_DAY', 'ONE_HOUR', 'ONE_WEEK'] as const;
export type NotificationPending = (typeof NOTIFICATION_PENDING)[number];

/** A user's preferences (table `user_settings`), one row per user, created on first change. */
export interface UserSettingsAttributes {
  userId: string;
  timezone: string | null;
  notificationOnDay: boolean;
  notificationEachWeek: boolean;
  notificationBeforeEvent: boolean;
  notificationPendingParticipation: NotificationPending;
  notificationPendingMembership: NotificationPending;
  groupNotifications: NotificationPending;
  /** Where the user looks for events (the web client's home page): a place name, a geohash, a range in km. */
  locationName: string | null;
  locationGeohash: string | null;
  locationRange: number | null;
}

/** The reference's defaults, which a user without a row has. */
export const DEFAULT_USER_SETTINGS: Omit<UserSettingsAttributes, 'userId'> = {
  timezone: null,
  notificationOnDay: true,
  notificationEachWeek: false,
  notificationBeforeEvent: false,
  notificationPendingParticipation: 'ONE_DAY',
  notificationPendingMembership: 'ONE_DAY',
  groupNotifications: 'ONE_DAY',
  locationName: null,
  locationGeohash: null,
  locationRange: null,
};

export type UserSettingsModel = ModelStatic<Model<UserSettingsAttributes, UserSettingsAttributes>>;

export function defineUserSettingsModel(sequelize: Sequelize): UserSettingsModel {
  const pending = { type: DataTypes.TEXT, allowNull: false };
  return sequelize.define<Model<UserSettingsAttributes, UserSettingsAttributes>>(
    'UserSettings',
    {
      userId: { type: DataTypes.BIGINT, primaryKey: true, field: 'user_id' },
      timezone: { type: DataTypes.TEXT, allowNull: true },
      notificationOnDay: { type: DataTypes.BOOLEAN, allowNull: false, field: 'notification_on_day' },
      notificationEachWeek: { type: DataTypes.BOOLEAN, allowNull: false, field: 'notification_each_week' },
      notificationBeforeEvent: {
        type: DataTypes.BOOLEAN,
        allowNull: false,
        field: 'notification_before_event',
      },
      notificationPendingParticipation: { ...pending, field: 'notification_pending_participation' },
      notificationPendingMembership: { ...pending, field: 'notification_pending_membership' },
      groupNotifications: { ...pending, field: 'group_notifications' },
      locationName: { type: DataTypes.TEXT, allowNull: true, field: 'location_name' },
      locationGeohash: { type: DataTypes.TEXT, allowNull: true, field: 'location_geohash' },
      locationRange: { type: DataTypes.INTEGER, allowNull: true, field: 'location_range' },
    },
    { tableName: 'user_settings', timestamps: true, createdAt: 'inserted_at', updatedAt: 'updated_at' },
  );
}
