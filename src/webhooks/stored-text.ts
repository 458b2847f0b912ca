// Text from outside (a receiver's reply, an error message that quotes it) made safe to store:
// PostgreSQL text holds no NUL and no lone surrogate, and jsonb refuses their \u escapes, so
// one such character would make a whole outcome unsaveable. Control characters are kept
// visible as \uXXXX rather than dropped, so the log shows what the receiver actually sent.

// C0 controls except tab, line feed and carriage return; DEL; C1 controls.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

const visibleEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

// A surrogate without its other half (JavaScript strings may hold one, UTF-8 cannot).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The first `limit` UTF-16 units of the text, cut on a character boundary, then made storable:
 * lone surrogates become U+FFFD and control characters their visible escape.
 */
export function storableText(text: string, limit = Infinity): string {
  let cut = text;
  if (cut.length > limit) {
    // Never keep half of a surrogate pair.
    const end = /[\ud800-\udbff]/.test(cut[limit - 1]) ? limit - 1 : limit;
    cut = cut.slice(0, end);
  }
  return cut.replace(LONE_SURROGATE, '\ufffd').replace(CONTROL, visibleEscape);
}

/** storableText for values that may be absent. */
export const storableOrNull = (text: string | null | undefined, limit?: number): string | null =>
  text == null ? null : storableText(text, limit);
