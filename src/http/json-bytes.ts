// The exact size in bytes of a value once sent as JSON (UTF-8), without serializing it: what
// JSON.stringify writes for a string is not its length. U+0000..U+001F become `\u0001` (6 bytes,
// or 2 for \b \t \n \f \r), `"` and `\` take 2, other characters 1 to 3 bytes of UTF-8, a pair of
// surrogates 4, and a lone surrogate is written as `\udXXX` (6).

/** Anything that is not printable ASCII without `"` or `\`: strings without it cost their length. */
const NOT_PLAIN = /[\u0000-\u001f"\\\u007f-\uffff]/;

/** Bytes of a string as a JSON string, quotes included. */
export function jsonStringBytes(s: string): number {
  if (!NOT_PLAIN.test(s)) return s.length + 2;
  let bytes = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** Bytes of any JSON value (objects and arrays walked, keys counted); dates as their ISO string. */
export function jsonBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  switch (typeof value) {
    case 'string':
      return jsonStringBytes(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length;
    case 'object': {
      if (value instanceof Date) return 26;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return jsonBytes((value as { toJSON(): unknown }).toJSON());
      if (Array.isArray(value)) {
        let total = 1 + Math.max(1, value.length);
        for (const item of value) total += jsonBytes(item);
        return total;
      }
      let total = 2;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function') continue;
        total += jsonStringBytes(key) + 2 + jsonBytes(item);
      }
      return total;
    }
    default:
      return 0;
  }
}
