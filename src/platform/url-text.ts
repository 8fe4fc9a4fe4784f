/**
 * Characters an absolute URL given to the API must not contain. WHATWG URL parsing (what `new URL`
 * and every HTTP client here do) does not refuse them: it removes tabs and newlines, trims leading
 * and trailing spaces and control characters, percent-encodes the rest, replaces an unpaired
 * surrogate with U+FFFD and turns `\` into `/` in http(s) URLs. Any of them would make the URL we
 * use differ from the one the caller sent, and usually means a paste mistake, so the API refuses
 * them instead, naming the first one.
 */
const NOT_ALLOWED = /[\s\p{Cc}\p{Cf}\p{Cs}\\]/u;

const NAMES: Record<string, string> = {
  '\t': 'a tab',
  '\n': 'a line feed',
  '\r': 'a carriage return',
  ' ': 'a space',
  '\\': 'a backslash',
};

/** Why `value` cannot be taken as a URL as it is written, or undefined when its characters are fine. */
export function urlTextProblem(value: string): string | undefined {
  return characterProblem(value, NOT_ALLOWED);
}

/**
 * `must not contain <the first character notAllowed matches> at character <its position>`, counted
 * in characters as a person reads them (code points), or undefined when none matches. `notAllowed`
 * matches one character and has the `u` flag, so a surrogate pair is one character and only an
 * unpaired surrogate is `\p{Cs}`.
 */
export function characterProblem(value: string, notAllowed: RegExp): string | undefined {
  if (!notAllowed.test(value)) return undefined;
  let position = 0;
  for (const char of value) {
    position += 1;
    if (notAllowed.test(char)) return `must not contain ${describe(char)} at character ${position}`;
  }
  return undefined;
}

function describe(char: string): string {
  const codePoint = `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
  return `${NAMES[char] ?? kind(char)} (${codePoint})`;
}

function kind(char: string): string {
  if (/\p{Cc}/u.test(char)) return 'a control character';
  if (/\p{Cs}/u.test(char)) return 'an unpaired surrogate';
  if (/\s/u.test(char)) return 'a white-space character';
  return 'an invisible formatting character';
}
