// A UTF-16 surrogate without its other half (no `u` flag: the pattern sees code units).
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * True for text PostgreSQL cannot store: U+0000 (refused in `text` and `json`) or an unpaired
 * surrogate (refused in `json`, silently mangled to U+FFFD in `text`). No honest client sends either.
 */
export function isUnstorableText(text: string): boolean {
  return text.includes('\0') || LONE_SURROGATE.test(text);
}

/**
 * The bracketed name (`fields_attributes[0][name]`) of the first string or key in parsed input that
 * PostgreSQL could not store, if any. Iterative: a deeply nested JSON body cannot overflow the stack.
 */
export function unstorableParam(params: unknown, root = ''): string | undefined {
  const pending: Array<[unknown, string]> = [[params, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, name] = next;
    if (typeof value === 'string') {
      if (isUnstorableText(value)) return name;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const childName = name === '' ? key : `${name}[${key}]`;
        if (isUnstorableText(key)) return childName;
        pending.push([child, childName]);
      }
    }
  }
  return undefined;
}
