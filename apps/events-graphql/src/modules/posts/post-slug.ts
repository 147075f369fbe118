/** The alphabet of the reference's short UUIDs (no 0, 1, I, O, l: nothing to misread). */
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A UUID written in base 57 (22 characters): the short id the reference puts at the end of slugs. */
export function shortUuid(uuid: string): string {
  let value = BigInt(`0x${uuid.replace(/-/g, '')}`);
  const base = BigInt(ALPHABET.length);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % base)]! + out;
    value /= base;
  }
  return out.padStart(22, ALPHABET[0]);
}

/**
 * A title as a slug part: accents dropped, runs of anything but letters and digits made one dash,
 * lower-cased (`Élections, 2026!` → `elections-2026`).
 */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** A post's slug as the reference makes it: its title, then its short id. */
export function postSlug(title: string, id: string): string {
  const base = slugify(title).slice(0, 200);
  return base === '' ? shortUuid(id) : `${base}-${shortUuid(id)}`;
}
