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

/** `text` as a JavaScript pattern that matches it literally (`\Q…\E`). */
const literal = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/**
 * The body of a Go expression (after its leading flags) as JavaScript source, reading it as Go does, or why it cannot
 * be. Translated: `(?P<name>` → `(?<name>`; escapes (`escape`); `.` without the s flag → `[^\n]`; a POSIX class inside
 * a class (`[[:alpha:]]`) → its ranges; a `]` first in a class → `\]`. Refused: what RE2 does not have (lookahead or
 * lookbehind, a repeat count above 1,000), what `escape` refuses, and a negated POSIX class (`[[:^alpha:]]`). Not
 * translated (README): with the m flag JavaScript's `^` and `$` also see `\r`, U+2028 and U+2029 as line ends, and with
 * the i flag it folds case by simple mappings (Go: Unicode folding, e.g. `k` and the Kelvin sign).
 */
function toJavaScript(body: string, flags: string): { ok: true; source: string } | { ok: false; reason: string } {
  let out = "";
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const e = escape(body, i, inClass, flags);
      if (!e.ok) return e;
      // only a class escape stands for a set; after a character escape (`\x00`) a "-" makes a range in both syntaxes
      const d = inClass && "dDwWs".includes(body[i + 1]!) ? dashAfter(body, e.end) : { source: "", end: e.end };
      out += e.source + d.source;
      i = d.end - 1;
      continue;
    }
    if (inClass) {
      const posix = c === "[" ? /^\[:(\^?)([a-z]+):\]/.exec(body.slice(i)) : null;
      if (posix) {
        const ranges = POSIX_CLASSES[posix[2]!];
        if (ranges === undefined) return { ok: false, reason: `unknown POSIX class [:${posix[2]}:]` };
        if (posix[1]) return { ok: false, reason: `negated POSIX classes such as [:^${posix[2]}:] are not supported` };
        const d = dashAfter(body, i + posix[0].length);
        out += ranges + d.source;
        i = d.end - 1;
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
    // flags past the leading ones: JavaScript has only scoped groups (`(?i:…)`), and "." and \A/\z are translated for
    // the leading flags, so a group may set or clear i alone
    const inline = c === "(" ? /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(body.slice(i)) : null;
    if (inline && (inline[3] === ")" || /[sm]/.test((inline[1] ?? "") + (inline[2] ?? ""))))
      return { ok: false, reason: "flags are supported at the start, such as (?s), or as an (?i:…) group" };
    if (c === "(" && body.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
      continue;
    }
    // Go's "." stops at a newline only (JavaScript's also at \r, U+2028 and U+2029); with the s flag both take all
    if (c === "." && !flags.includes("s")) {
      out += "[^\\n]";
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
 * What follows a class escape or a POSIX class that ends at `at`: a `-` that does not end the class is itself in Go,
 * where JavaScript would read a range from the expansion's last character, so it becomes `\\-` and is consumed.
 * @returns the source to add and the index after what was consumed
 */
function dashAfter(body: string, at: number): { source: string; end: number } {
  return body[at] === "-" && at + 1 < body.length && body[at + 1] !== "]" ? { source: "\\-", end: at + 1 } : { source: "", end: at };
}

/** A character code as a JavaScript escape (`\xHH` or `\uHHHH`), or undefined above U+FFFF (no `u` flag). */
function codeEscape(code: number): string | undefined {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : undefined;
}

/** Go's `\s` (regexp/syntax perl_groups.go): tab, newline, form feed, carriage return, space; JavaScript's has more. */
const GO_SPACE = "\\t\\n\\f\\r ";

/**
 * The escape at `body[at]` (a backslash) as JavaScript source, and the index after it (Go's regexp/syntax parse.go
 * parseEscape and the Perl classes): `\A`, `\z` (outside a class; not with the m flag), `\Q…\E`, octal (`\0`, `\12`,
 * `\101`), `\x{…}`, `\a` and `\s`/`\S` translated; Perl classes, `\f\n\r\t\v`, `\xHH`, `\b`/`\B` (outside a class) and
 * escaped punctuation copied. Refused: backreferences, `\p`/`\P`, `\S` inside a class, code points above U+FFFF, and
 * every other escape (Go refuses them; JavaScript would read the letter).
 */
function escape(
  body: string,
  at: number,
  inClass: boolean,
  flags: string,
): { ok: true; source: string; end: number } | { ok: false; reason: string } {
  const n = body[at + 1] ?? "";
  const done = (source: string, end = at + 2) => ({ ok: true as const, source, end });
  const refused = (reason: string) => ({ ok: false as const, reason });
  if (n === "") return refused("trailing backslash");
  if (n === "p" || n === "P") return refused(`\\${n} (Unicode classes) is not supported`);
  if ("dDwW".includes(n)) return done(`\\${n}`);
  if (n === "s") return done(inClass ? GO_SPACE : `[${GO_SPACE}]`);
  if (n === "S") return inClass ? refused("\\S inside a class is not supported") : done(`[^${GO_SPACE}]`);
  if ("fnrtv".includes(n)) return done(`\\${n}`);
  if (n === "a") return done("\\x07");
  if (n >= "0" && n <= "7") {
    // \1–\7 alone is a backreference (RE2 has none); else up to three octal digits, as \0 with up to two more
    const digits = /^[0-7]{1,3}/.exec(body.slice(at + 1))![0];
    if (n !== "0" && digits.length === 1) return refused("backreferences are not Go (RE2) syntax");
    return done(codeEscape(parseInt(digits, 8))!, at + 1 + digits.length);
  }
  if (n === "x") {
    const braced = /^\{([0-9A-Fa-f]+)\}/.exec(body.slice(at + 2));
    const plain = /^[0-9A-Fa-f]{2}/.exec(body.slice(at + 2));
    if (!braced && !plain) return refused("invalid escape sequence \\x");
    const code = parseInt(braced ? braced[1]! : plain![0], 16);
    const js = codeEscape(code);
    if (js === undefined) return refused(`\\x{${braced![1]}}: code points above U+FFFF are not supported`);
    return done(js, at + 2 + (braced ? braced[0].length : 2));
  }
  if (!inClass) {
    if (n === "b" || n === "B") return done(`\\${n}`);
    if (n === "A" || n === "z") {
      if (flags.includes("m")) return refused(`\\${n} is not supported with the m flag`);
      return done(n === "A" ? "^" : "$");
    }
    if (n === "Q") {
      const close = body.indexOf("\\E", at + 2);
      const stop = close < 0 ? body.length : close;
      return done(literal(body.slice(at + 2, stop)), close < 0 ? stop : stop + 2);
    }
    if (n === "k" || (n >= "8" && n <= "9"))
      return refused(n === "k" ? "backreferences are not Go (RE2) syntax" : `invalid escape sequence \\${n}`);
  }
  // escaped punctuation is the character itself; any other escape is an error in Go
  if (n.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(n)) return done(`\\${n}`);
  return refused(`invalid escape sequence \\${n}`);
}

/**
 * A Go (RE2) regular expression as a JavaScript one that matches what Go's would: leading flag groups such as `(?i)`
 * become flags, and the body is translated (`toJavaScript`). The reason it cannot be one: it does not compile, uses
 * what RE2 refuses or what cannot be translated (`toJavaScript`), or ungreedy mode `(?U)`.
 */
export function parseGoRegExp(source: string): { ok: true; regexp: RegExp } | { ok: false; reason: string } {
  let flags = "";
  let body = source;
  // leading flag groups, one or several (`(?i)(?s)`)
  for (let lead = /^\(\?([imsU]+)\)/.exec(body); lead; lead = /^\(\?([imsU]+)\)/.exec(body)) {
    if (lead[1]!.includes("U")) return { ok: false, reason: "ungreedy mode (?U) is not supported" };
    flags = [...new Set(flags + lead[1]!)].join("");
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
