// RFC 8785 (JCS) canonical JSON of a receipt: the text its signature covers and its chain hash
// is taken over (docs/trust.md, "What is signed"). Written here in a few lines rather than
// brought in, so the client stays dependency-free at run time; the service signs with this same
// function. A receipt holds only integers, strings and booleans (in objects and arrays), so every
// language canonicalises it the same way: no floats, whose text form differs between JSON
// libraries. The one exception is forced by the language: an expression node whose value is not
// an integer (`1d6/4`) carries that value as a JSON number beside its exact fraction `exact`;
// RFC 8785 fixes the number's text (ECMAScript's shortest round trip), and `exact` says what it
// stands for.

/** A value that has no canonical form here: `path` says where (`$.roll.dice[0].total`). */
export class UnsignableValueError extends Error {
  constructor(readonly path: string) {
    super(`${path} is not an integer, a string, a boolean, an array or an object`);
    this.name = 'UnsignableValueError';
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** RFC 8785 refuses a string holding half a surrogate pair: it has no UTF-8 form. */
function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

function canonical(value: unknown, path: string, fractionAllowed: boolean): string {
  if (typeof value === 'string') {
    if (hasLoneSurrogate(value)) throw new UnsignableValueError(path);
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if ((Number.isSafeInteger(value) && !Object.is(value, -0)) || (fractionAllowed && Number.isFinite(value)))
      return JSON.stringify(value);
    throw new UnsignableValueError(path);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      text += canonical(value[index], `${path}[${index}]`, false);
    }
    return `${text}]`;
  }
  if (isPlainObject(value)) {
    const exact = typeof value.exact === 'string';
    let text = '{';
    for (const key of Object.keys(value).sort()) {
      const item = value[key];
      if (item === undefined) continue;
      if (text.length > 1) text += ',';
      text += `${canonical(key, path, false)}:${canonical(item, `${path}.${key}`, exact && key === 'value')}`;
    }
    return `${text}}`;
  }
  throw new UnsignableValueError(path);
}

/**
 * The RFC 8785 canonical JSON of a signable value: safe integers (a finite number only as the
 * `value` of an object with a string `exact`), strings, booleans, arrays and plain objects, keys
 * sorted by UTF-16 code units, undefined properties left out (as JSON does). Throws
 * UnsignableValueError on anything else.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '$', false);
}
