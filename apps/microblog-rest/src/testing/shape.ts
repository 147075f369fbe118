import { expect } from 'chai';

/** A JSON type, a union of them (`'string|null'`), or a nested shape / array of a shape. */
export type Shape = string | { [key: string]: Shape } | [Shape];

/**
 * Asserts `value` has exactly the keys of `shape` (none missing, none extra) with the given JSON types,
 * recursively; arrays are checked element by element against their one-element shape.
 */
export function expectShape(value: unknown, shape: Shape, path = '$'): void {
  if (typeof shape === 'string') {
    const allowed = shape.split('|');
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    expect(allowed, `${path} is ${actual}, expected ${shape}`).to.include(actual);
    return;
  }
  if (Array.isArray(shape)) {
    expect(value, `${path} should be an array`).to.be.an('array');
    (value as unknown[]).forEach((item, index) => expectShape(item, shape[0], `${path}[${index}]`));
    return;
  }
  expect(value, `${path} should be an object`).to.be.an('object').and.not.equal(null);
  expect(Object.keys(value as object).sort(), `keys of ${path}`).to.deep.equal(Object.keys(shape).sort());
  for (const [key, inner] of Object.entries(shape)) {
    expectShape((value as Record<string, unknown>)[key], inner, `${path}.${key}`);
  }
}
