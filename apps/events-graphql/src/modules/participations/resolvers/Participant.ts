import type { ParticipantResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Participant: ParticipantResolvers = {
  actor: (participant, _args, ctx) => ctx.loaders.persons.actors.load(participant.actorId),
  event: (participant, _args, ctx) => ctx.loaders.participations.events.load(participant.eventId),
  metadata: (participant) => ({
    cancellationToken: participant.cancellationToken,
    message: participant.message,
    locale: participant.locale,
  }),
};
