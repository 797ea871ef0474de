/** Go regular expressions in JavaScript (placement filters are written for upstream's Go `regexp`). */

/** Go's largest repeat count (`{n,m}`; regexp/syntax maxRepeat): beyond it Go refuses the expression. */
const MAX_REPEAT = 1000;

/**
 * True when `source` uses what JavaScript compiles and Go's RE2 refuses: lookahead or lookbehind (`(?=`, `(?!`,
 * `(?<=`, `(?<!`), backreferences (`\1`, `\k<name>`), or a repeat count above 1,000. Outside character classes only.
 */
function beyondRe2(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const n = source[++i] ?? "";
      if (!inClass && ((n >= "1" && n <= "9") || n === "k")) return true;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      // a "]" first in the class is a literal
      if (source[i + 1] === "^") i++;
      if (source[i + 1] === "]") i++;
    } else if (c === "(" && /^\(\?(?:=|!|<=|<!)/.test(source.slice(i, i + 4))) return true;
    else if (c === "{") {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i));
      if (m && (Number(m[1]) > MAX_REPEAT || (m[2] !== undefined && m[2] !== "" && Number(m[2]) > MAX_REPEAT))) return true;
    }
  }
  return false;
}

/**
 * A Go (RE2) regular expression as a JavaScript one: leading flag groups such as `(?i)` become flags and `(?P<name>`
 * becomes `(?<name>`. Undefined when it does not compile, or uses what RE2 refuses (`beyondRe2`: lookaround,
 * backreferences, a repeat count above 1,000).
 */
export function goRegExp(source: string): RegExp | undefined {
  if (beyondRe2(source)) return undefined;
  let flags = "";
  let body = source;
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    if (lead[1]!.includes("U")) return undefined; // ungreedy mode has no JavaScript equivalent
    flags = [...new Set(lead[1]!)].join("");
    body = body.slice(lead[0].length);
  }
  try {
    return new RegExp(body.replaceAll("(?P<", "(?<"), flags);
  } catch {
    return undefined;
  }
}
