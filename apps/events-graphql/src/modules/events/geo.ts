import ngeohash from 'ngeohash';

export interface LatLon {
  latitude: number;
  longitude: number;
}

/** The mean Earth radius in km (IUGG), the sphere distances are measured on. */
export const EARTH_RADIUS_KM = 6371.0088;
/** The radius `events(location:)` searches within when none is given, as the reference's search. */
export const DEFAULT_RADIUS_KM = 50;

const NUMBER = /^\s*-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s*$/;

/** `"lon;lat"` → a point, or null when it is not two numbers within range. */
export function parsePoint(text: string): LatLon | null {
  const parts = text.split(';');
  if (parts.length !== 2 || !parts.every((part) => NUMBER.test(part))) return null;
  const [longitude, latitude] = parts.map(Number) as [number, number];
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { latitude, longitude };
}

/** A point as the reference writes it: `lon;lat`, floats keeping a decimal (`2.0`, not `2`). */
export function formatPoint({ latitude, longitude }: LatLon): string {
  const float = (value: number) => (Number.isInteger(value) ? value.toFixed(1) : String(value));
  return `${float(longitude)};${float(latitude)}`;
}

const GEOHASH = /^[0-9b-hjkmnp-z]{1,12}$/;

/** The centre of a geohash cell (`u09tvw` → Paris), or null when it is not a geohash. */
export function geohashCenter(hash: string): LatLon | null {
  const lower = hash.trim().toLowerCase();
  if (!GEOHASH.test(lower)) return null;
  const { latitude, longitude } = ngeohash.decode(lower);
  return { latitude, longitude };
}

/** A box in degrees: west/south/east/north, east ≥ west (a box never wraps). */
export interface Box {
  west: number;
  south: number;
  east: number;
  north: number;
}

/**
 * The boxes that hold every point within `radiusKm` of `center`: one, or two when the circle crosses
 * the antimeridian; the full longitude band when it reaches a pole. Prefilter only: the distance decides.
 */
export function boundingBoxes(center: LatLon, radiusKm: number): Box[] {
  const angular = radiusKm / EARTH_RADIUS_KM;
  const toDegrees = (radians: number) => (radians * 180) / Math.PI;
  const south = center.latitude - toDegrees(angular);
  const north = center.latitude + toDegrees(angular);
  if (south <= -90 || north >= 90 || angular >= Math.PI / 2) {
    return [{ west: -180, south: Math.max(south, -90), east: 180, north: Math.min(north, 90) }];
  }
  const ratio = Math.sin(angular) / Math.cos((center.latitude * Math.PI) / 180);
  if (ratio >= 1) return [{ west: -180, south, east: 180, north }];
  const spread = toDegrees(Math.asin(ratio));
  const west = center.longitude - spread;
  const east = center.longitude + spread;
  if (west < -180)
    return [
      { west: west + 360, south, east: 180, north },
      { west: -180, south, east, north },
    ];
  if (east > 180)
    return [
      { west, south, east: 180, north },
      { west: -180, south, east: east - 360, north },
    ];
  return [{ west, south, east, north }];
}

/** The great-circle distance in km between two points (haversine), as SQL over columns `a.latitude`/`a.longitude`. */
export const DISTANCE_SQL = `(2 * ${EARTH_RADIUS_KM} * asin(sqrt(
  power(sin(radians(a.latitude - :centerLatitude) / 2), 2) +
  cos(radians(:centerLatitude)) * cos(radians(a.latitude)) * power(sin(radians(a.longitude - :centerLongitude) / 2), 2))))`;
