/**
 * One of a group's ActivityPub collections (spec `events/not-shown.md` §5): `/@group/<name>`, served as
 * an `OrderedCollection` paginated by 10 with its items embedded, as the reference serves them. The
 * routes (and the check that a private collection is only shown to requests signed by a member) are
 * the group federation's; each module that owns a kind of group content supplies its source.
 */
export interface GroupCollectionSource {
  /** The collection's path segment under the group's URL. */
  readonly name: GroupCollectionName;
  /**
   * Whether only members may read it at all (discussions, resources, todos and members are the
   * group's own business; events, posts and followers are read by anyone who may see the group).
   */
  readonly membersOnly: boolean;
  /** How many items the reader may see. */
  count(groupActorId: number, reader: GroupCollectionReader): Promise<number>;
  /**
   * The items `offset` to `offset + limit - 1` the reader may see, newest first, as AS2 objects (or
   * ids, as followers are listed).
   */
  items(
    groupActorId: number,
    reader: GroupCollectionReader,
    offset: number,
    limit: number,
  ): Promise<Array<Record<string, unknown> | string>>;
}

export type GroupCollectionName =
  'members' | 'followers' | 'events' | 'posts' | 'discussions' | 'resources' | 'todos';

/** Who reads a collection: whether the request was signed by an approved member of the group. */
export interface GroupCollectionReader {
  member: boolean;
}
