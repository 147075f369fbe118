import type { PeriodicJob } from '@agora/core';
import type { ParticipantExportService } from './participant-export.service.js';

export const EXPORT_JOBS = { purgeExpiredExports: 'purge-expired-exports' } as const;

/** Expired exports (an hour old) go within ten minutes: row and file (ADR 0006, 0022). */
export function exportJobs(exports: Pick<ParticipantExportService, 'purgeExpired'>): PeriodicJob[] {
  return [
    { name: EXPORT_JOBS.purgeExpiredExports, periodMs: 10 * 60_000, run: () => exports.purgeExpired() },
  ];
}
