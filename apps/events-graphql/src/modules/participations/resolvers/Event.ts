import { BadInput, Forbidden } from '@agora/core';
import type { EventResolvers } from '../../../graphql/resolvers-types.generated.js';
import { NO_PARTICIPANTS, PARTICIPANT_ROLES, type ParticipantRole } from '../participant-row.js';
import { PARTICIPATION_MESSAGES } from '../participation.service.js';

/** `roles` as the reference reads it: comma-separated, any case; empty for every role. */
function parseRoles(roles: string): ParticipantRole[] {
  const names = roles
    .split(',')
    .map((role) => role.trim().toUpperCase())
    .filter((role) => role !== '');
  const known = names.filter((role): role is ParticipantRole =>
    (PARTICIPANT_ROLES as readonly string[]).includes(role),
  );
  if (known.length !== names.length) {
    throw new BadInput('Invalid arguments passed', { code: 'invalid_argument' });
  }
  return known;
}

export const Event: EventResolvers = {
  /** Moderators of the event (any of the caller's profiles) get every count; others the participants only. */
  participantStats: async (event, _args, ctx) => {
    const counts = await ctx.loaders.participations.counts.load(event.id);
    const viewer = await ctx.viewer();
    const moderates =
      viewer !== null && (await ctx.loaders.participations.moderates.load(`${viewer.id}:${event.id}`));
    if (moderates) {
      return {
        ...counts,
        going: counts.participant + counts.moderator + counts.administrator + counts.creator,
      };
    }
    return { ...NO_PARTICIPANTS, participant: counts.participant, going: null };
  },
  /** For the organizer and moderators of the event, as the caller's default profile; anonymous callers see none. */
  participants: async (event, { page, limit, roles }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer) return { elements: [], total: 0 };
    const profile = await ctx.loaders.persons.defaultActor.load(viewer.id);
    if (!profile || !(await ctx.app.participations.canManage(profile.id, event))) {
      throw new Forbidden(PARTICIPATION_MESSAGES.listNotModerator, { code: 'unknown_error' });
    }
    return ctx.loaders.participations.view.ofEvent(event.id, parseRoles(roles ?? ''), {
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
