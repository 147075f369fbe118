import type { MarkerView } from '../modules/markers/marker.service.js';

/** Mastodon's Marker entity (3.0), keyed by timeline: `{ home: {…}, notifications: {…} }`. */
export interface MarkerJson {
  last_read_id: string;
  version: number;
  updated_at: string;
}

export function serializeMarkers(views: readonly MarkerView[]): Record<string, MarkerJson> {
  return Object.fromEntries(
    views.map((view) => [
      view.timeline,
      {
        last_read_id: view.lastReadId,
        version: view.version,
        updated_at: new Date(view.updatedAt).toISOString(),
      },
    ]),
  );
}
