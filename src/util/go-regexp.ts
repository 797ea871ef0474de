/**
 * Go regular expressions in JavaScript: placement filters and the admission controller's namespace and user lists are
 * written for upstream's Go `regexp` (RE2).
 */

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
 * becomes `(?<name>`. The reason it cannot be one: it does not compile, or uses what RE2 refuses (`beyondRe2`:
 * lookaround, backreferences, a repeat count above 1,000), or ungreedy mode `(?U)`.
 */
export function parseGoRegExp(source: string): { ok: true; regexp: RegExp } | { ok: false; reason: string } {
  if (beyondRe2(source)) return { ok: false, reason: "lookaround, backreferences and repeat counts above 1000 are not Go (RE2) syntax" };
  let flags = "";
  let body = source;
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    if (lead[1]!.includes("U")) return { ok: false, reason: "ungreedy mode (?U) is not supported" };
    flags = [...new Set(lead[1]!)].join("");
    body = body.slice(lead[0].length);
  }
  try {
    return { ok: true, regexp: new RegExp(body.replaceAll("(?P<", "(?<"), flags) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/** {@link parseGoRegExp}'s expression, or undefined when there is none. */
export function goRegExp(source: string): RegExp | undefined {
  const r = parseGoRegExp(source);
  return r.ok ? r.regexp : undefined;
}
