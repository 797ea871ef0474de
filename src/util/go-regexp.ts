/**
 * Go regular expressions in JavaScript: placement filters and the admission controller's namespace and user lists are
 * written for upstream's Go `regexp` (RE2).
 */

/** Go's largest repeat count (`{n,m}`; regexp/syntax maxRepeat): beyond it Go refuses the expression. */
const MAX_REPEAT = 1000;

/** Go's POSIX classes (regexp/syntax perl_groups.go posixGroup) as the ranges they stand for, inside a class. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-/:-@[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** The letters Go's regexp/syntax reads after a backslash (`\A`, `\z`, `\Q` handled apart); others are errors. */
const GO_LETTER_ESCAPES = "afnrtvdDsSwWbBx";

/** `text` as a JavaScript pattern that matches it literally (`\Q…\E`). */
const literal = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/**
 * The body of a Go expression (after its leading flags) as JavaScript source, reading it as Go does, or why it cannot
 * be. Translated: `(?P<name>` → `(?<name>`; `\A` and `\z` (start and end of text) → `^` and `$` (JavaScript's without
 * the `m` flag; with it, refused); `\Q…\E` → the text escaped; a POSIX class inside a class (`[[:alpha:]]`) → its
 * ranges. Refused: what RE2 does not have (lookahead or lookbehind, backreferences `\1` / `\k<name>`, a repeat count
 * above 1,000, a letter escape Go does not know, such as `\y` or a `\E` without `\Q`), a negated POSIX class
 * (`[[:^alpha:]]`) and `\p` / `\P` (Unicode classes; JavaScript without the `u` flag reads the letter). Escapes the two
 * read alike are copied.
 */
function toJavaScript(body: string, flags: string): { ok: true; source: string } | { ok: false; reason: string } {
  let out = "";
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const n = body[++i] ?? "";
      if (n === "p" || n === "P") return { ok: false, reason: `\\${n} (Unicode classes) is not supported` };
      if (!inClass && ((n >= "1" && n <= "9") || n === "k")) return { ok: false, reason: "backreferences are not Go (RE2) syntax" };
      if (!inClass && (n === "A" || n === "z")) {
        if (flags.includes("m")) return { ok: false, reason: `\\${n} is not supported with the m flag` };
        out += n === "A" ? "^" : "$";
      } else if (!inClass && n === "Q") {
        const close = body.indexOf("\\E", i + 1);
        out += literal(body.slice(i + 1, close < 0 ? body.length : close));
        i = close < 0 ? body.length : close + 1;
      } else if (/[A-Za-z]/.test(n) && !GO_LETTER_ESCAPES.includes(n)) {
        // Go refuses the expression (`\E` without `\Q` too); JavaScript would read the letter
        return { ok: false, reason: `invalid escape sequence \\${n}` };
      } else out += c + n;
      continue;
    }
    if (inClass) {
      const posix = c === "[" ? /^\[:(\^?)([a-z]+):\]/.exec(body.slice(i)) : null;
      if (posix) {
        const ranges = POSIX_CLASSES[posix[2]!];
        if (ranges === undefined) return { ok: false, reason: `unknown POSIX class [:${posix[2]}:]` };
        if (posix[1]) return { ok: false, reason: `negated POSIX classes such as [:^${posix[2]}:] are not supported` };
        out += ranges;
        i += posix[0].length - 1;
        continue;
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // a "]" first in the class (after a "^") is a literal
      if (body[i + 1] === "^") out += body[++i];
      if (body[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (c === "(" && /^\(\?(?:=|!|<=|<!)/.test(body.slice(i, i + 4))) return { ok: false, reason: "lookaround is not Go (RE2) syntax" };
    if (c === "(" && body.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
      continue;
    }
    if (c === "{") {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(body.slice(i));
      if (m && (Number(m[1]) > MAX_REPEAT || (m[2] !== undefined && m[2] !== "" && Number(m[2]) > MAX_REPEAT)))
        return { ok: false, reason: `repeat counts above ${MAX_REPEAT} are not Go (RE2) syntax` };
    }
    out += c;
  }
  return { ok: true, source: out };
}

/**
 * A Go (RE2) regular expression as a JavaScript one that matches what Go's would: leading flag groups such as `(?i)`
 * become flags, and the body is translated (`toJavaScript`). The reason it cannot be one: it does not compile, uses
 * what RE2 refuses or what cannot be translated (`toJavaScript`), or ungreedy mode `(?U)`.
 */
export function parseGoRegExp(source: string): { ok: true; regexp: RegExp } | { ok: false; reason: string } {
  let flags = "";
  let body = source;
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    if (lead[1]!.includes("U")) return { ok: false, reason: "ungreedy mode (?U) is not supported" };
    flags = [...new Set(lead[1]!)].join("");
    body = body.slice(lead[0].length);
  }
  const js = toJavaScript(body, flags);
  if (!js.ok) return js;
  try {
    return { ok: true, regexp: new RegExp(js.source, flags) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/** {@link parseGoRegExp}'s expression, or undefined when there is none. */
export function goRegExp(source: string): RegExp | undefined {
  const r = parseGoRegExp(source);
  return r.ok ? r.regexp : undefined;
}
