// RFC 8785 (JCS) canonical JSON of the signed part of a receipt. A receipt holds only integers,
// strings and booleans (in objects and arrays), so every language canonicalises it the same way:
// no floats, whose text form differs between JSON libraries (docs/trust.md, "What is signed").
// The one exception is forced by the language: an expression node whose value is not an integer
// (`1d6/4`) carries that value as a JSON number beside its exact fraction `exact`; RFC 8785 fixes
// the number's text (ECMAScript's shortest round trip), and `exact` says what it stands for.
import canonicalize from 'canonicalize';

export class UnsignableValueError extends Error {
  constructor(readonly path: string) {
    super(`${path} is not an integer, a string, a boolean, an array or an object`);
    this.name = 'UnsignableValueError';
  }
}

/** Throws UnsignableValueError when `value` holds anything but safe integers, strings, booleans. */
export function assertSignable(value: unknown, path = '$'): void {
  if (typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) return;
    throw new UnsignableValueError(path);
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) assertSignable(item, `${path}[${index}]`);
    return;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const exact = typeof (value as { exact?: unknown }).exact === 'string';
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (exact && key === 'value' && typeof item === 'number' && Number.isFinite(item)) continue;
      assertSignable(item, `${path}.${key}`);
    }
    return;
  }
  throw new UnsignableValueError(path);
}

/** The canonical JSON text of a signable value (undefined properties are left out, as JSON does). */
export function canonicalJson(value: unknown): string {
  assertSignable(value);
  const text = canonicalize(value);
  if (text === undefined) throw new UnsignableValueError('$');
  return text;
}
