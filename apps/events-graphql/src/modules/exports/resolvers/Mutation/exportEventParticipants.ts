import type { ExportFormat } from '../../../../config/config.js';
import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import type { ParticipantRole } from '../../../participations/participant-row.js';
import { requireUser } from '../../../users/guards.js';

/** The organizer, as the caller's default profile, exports the event's participants; the answer is the file's name. */
export const exportEventParticipants: RootMutationTypeResolvers['exportEventParticipants'] = async (
  _parent,
  { eventId, format, roles },
  ctx,
) => {
  const user = await requireUser(ctx);
  const profile = await ctx.loaders.persons.defaultActor.load(user.id);
  const wanted = (roles ?? []).filter((role): role is ParticipantRole => role !== null);
  return ctx.app.participantExports.export(
    profile?.id ?? null,
    eventId,
    (format ?? 'CSV').toLowerCase() as ExportFormat,
    wanted,
  );
};
