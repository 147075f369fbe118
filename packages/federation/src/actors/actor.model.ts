import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { ActorField, ActorType } from './actor.types.js';

/** One row of `actors` (migrations/20261122200000-actors.ts); bigint ids read as strings. */
export interface ActorRow {
  id: string;
  type: ActorType;
  username: string;
  domain: string | null;
  uri: string;
  url: string | null;
  displayName: string;
  summary: string;
  fields: ActorField[];
  inboxUrl: string | null;
  outboxUrl: string | null;
  sharedInboxUrl: string | null;
  followersUrl: string | null;
  followingUrl: string | null;
  endpoints: Record<string, string>;
  publicKeyPem: string | null;
  privateKeyPem: string | null;
  keyId: string | null;
  manuallyApprovesFollowers: boolean;
  discoverable: boolean;
  indexable: boolean;
  avatarUrl: string | null;
  headerUrl: string | null;
  alsoKnownAs: string[];
  movedToActorId: string | null;
  userId: string | null;
  followersCount: number;
  followingCount: number;
  statusesCount: number;
  lastStatusAt: Date | null;
  suspendedAt: Date | null;
  silencedAt: Date | null;
  fetchedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type ActorCreationRow = Partial<ActorRow> & Pick<ActorRow, 'type' | 'username' | 'uri'>;
export type ActorInstance = Model<ActorRow, ActorCreationRow>;
export type ActorModel = ModelStatic<ActorInstance>;

export interface FollowRow {
  id: string;
  actorId: string;
  targetActorId: string;
  uri: string | null;
  acceptedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
export type FollowInstance = Model<
  FollowRow,
  Partial<FollowRow> & Pick<FollowRow, 'actorId' | 'targetActorId'>
>;
export type FollowModel = ModelStatic<FollowInstance>;

// Functions, not shared objects: Sequelize writes each column's `field` into its attribute object.
const text = () => ({ type: DataTypes.TEXT, allowNull: true });
const date = () => ({ type: DataTypes.DATE, allowNull: true });
const counter = () => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
const flag = (defaultValue: boolean) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });

/** Defines `Actor` and `Follow` on this Sequelize instance (once per instance). */
export function defineActorModels(sequelize: Sequelize): { Actor: ActorModel; Follow: FollowModel } {
  if (sequelize.isDefined('Actor')) {
    return {
      Actor: sequelize.model('Actor') as ActorModel,
      Follow: sequelize.model('Follow') as FollowModel,
    };
  }
  const Actor = sequelize.define<ActorInstance>(
    'Actor',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      type: { type: DataTypes.TEXT, allowNull: false },
      username: { type: DataTypes.TEXT, allowNull: false },
      domain: text(),
      uri: { type: DataTypes.TEXT, allowNull: false },
      url: text(),
      displayName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      summary: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      fields: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      inboxUrl: text(),
      outboxUrl: text(),
      sharedInboxUrl: text(),
      followersUrl: text(),
      followingUrl: text(),
      endpoints: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      publicKeyPem: text(),
      privateKeyPem: text(),
      keyId: text(),
      manuallyApprovesFollowers: flag(false),
      discoverable: flag(true),
      indexable: flag(false),
      avatarUrl: text(),
      headerUrl: text(),
      alsoKnownAs: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
      movedToActorId: { type: DataTypes.BIGINT, allowNull: true },
      userId: { type: DataTypes.BIGINT, allowNull: true },
      followersCount: counter(),
      followingCount: counter(),
      statusesCount: counter(),
      lastStatusAt: date(),
      suspendedAt: date(),
      silencedAt: date(),
      fetchedAt: date(),
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'actors', underscored: true, timestamps: true },
  );
  const Follow = sequelize.define<FollowInstance>(
    'Follow',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      actorId: { type: DataTypes.BIGINT, allowNull: false },
      targetActorId: { type: DataTypes.BIGINT, allowNull: false },
      uri: text(),
      acceptedAt: date(),
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'follows', underscored: true, timestamps: true },
  );
  return { Actor, Follow };
}
