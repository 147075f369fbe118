import type { MemberResolvers } from '../../../graphql/resolvers-types.generated.js';

// id and role are read as stored.
export const Member: MemberResolvers = {
  actor: (member, _args, ctx) => ctx.loaders.persons.actors.load(member.actorId),
  parent: (member, _args, ctx) => ctx.loaders.persons.actors.load(member.parentId),
  invitedBy: (member, _args, ctx) =>
    member.invitedById === null ? null : ctx.loaders.persons.actors.load(member.invitedById),
  insertedAt: (member) => member.insertedAt,
  updatedAt: (member) => member.updatedAt,
};
