/**
 * Go (RE2) expressions read as Go reads them (src/util/go-regexp.ts; Go's regexp/syntax parse.go, perl_groups.go):
 * each row is an expression, an input, and whether Go's regexp.MatchString matches it ("refused": Go refuses the
 * expression, or corral cannot read it as Go does and refuses it rather than misread it).
 */
import { describe, expect, it } from "vitest";
import { parseGoRegExp } from "../../../src/util/go-regexp.js";

const ROWS: [string, string, boolean | "refused"][] = [
  // \A and \z: start and end of text (JavaScript alone reads the letters A and z)
  ["^airflow\\z", "airflow", true],
  ["^airflow\\z", "airflowz", false],
  ["\\Aairflow$", "airflow", true],
  ["\\Aairflow$", "Aairflow", false],
  ["(?m)^a\\z", "a", "refused"],
  // POSIX classes inside a class (JavaScript alone reads `[[:alpha:]` as a class of characters, then `]`)
  ["^[[:alpha:]]+$", "abc", true],
  ["^[[:alpha:]]+$", "a]", false],
  ["^[[:punct:]]$", "]", true],
  ["^[[:punct:]]$", "a", false],
  ["(?i)^[[:lower:]]+$", "ABC", true],
  ["^[[:^digit:]]$", "1", "refused"],
  ["^[[:nope:]]$", "n", "refused"],
  ["^[[:]$", ":", true],
  // \Q…\E: literal text, to the end without \E
  ["^\\Qa.b\\E$", "a.b", true],
  ["^\\Qa.b\\E$", "axb", false],
  ["^\\Qa.b$", "a.b$", true],
  // a "]" first in a class is a literal (JavaScript alone reads `[]` as an empty class)
  ["^[]a]$", "]", true],
  ["^[^]a]$", "]", false],
  ["^[^]a]$", "b", true],
  // escapes JavaScript reads otherwise: \a (bell), \x{…}, octal, \s (Go's has no \v), "." (Go's takes \r)
  ["^\\a$", "\x07", true],
  ["^\\a$", "a", false],
  ["^\\x{41}$", "A", true],
  ["^\\x{41}$", "x".repeat(41), false],
  ["^\\x{3b1}$", "α", true],
  ["^\\x{1F600}$", "😀", "refused"],
  ["^\\101$", "A", true],
  ["^a\\0b$", "a\0b", true],
  ["^\\s$", "\v", false],
  ["^\\s$", "\t", true],
  ["^[\\s]$", "\v", false],
  ["^\\S$", "\v", true],
  ["^[\\S]$", "x", "refused"],
  ["^a.b$", "a\rb", true],
  ["^a.b$", "a\nb", false],
  ["(?s)^a.b$", "a\nb", true],
  ["(?i)(?s)^A.B$", "a\nb", true],
  ["^[.]$", "x", false],
  ["^\\_$", "_", true],
  ["^[\\b]$", "\b", "refused"],
  ["^a\\", "a", "refused"],
  // a "-" after a class escape or POSIX class is itself in Go (JavaScript would read a range from the expansion)
  ["^[\\s-z]$", "a", false],
  ["^[\\s-z]$", "-", true],
  ["^[[:space:]-z]$", "a", false],
  ["^[[:cntrl:]-z]$", "-", true],
  // after a character escape it makes a range, as in JavaScript
  ["^[\\x00-\\x1f]$", "\u0001", true],
  ["^[\\x{41}-\\x{5a}]+$", "ABZ", true],
  ["^[\\x41-\\x5a]$", "-", false],
  ["^[\\w\\s-.]+$", "a b-c.d", true],
  // s and m only as leading flags ("." and \A/\z are translated for those); other inline flags pass
  ["(?s)^a.b$", "a\nb", true],
  ["^(?s:a.b)$", "a\nb", "refused"],
  ["(?m:^b\\z)", "a\nb", "refused"],
  ["^(?i:abc)$", "ABC", true],
  ["^a(?i)b$", "aB", "refused"],
  // escapes both read alike; named groups as Go writes them
  ["^a\\.b[\\]:]\\d$", "a.b:1", true],
  ["^\\x41\\bB$", "AB", false],
  ["(?P<n>a)b", "xab", true],
  // what Go refuses, or corral cannot translate
  ["^a\\E$", "a", "refused"],
  ["^a\\y$", "ay", "refused"],
  ["^\\pL$", "a", "refused"],
  ["^[\\p{Greek}]$", "α", "refused"],
  ["^a{1001}$", "a", "refused"],
  ["^kube-(?!system)", "kube-x", "refused"],
  ["^(a)\\1$", "aa", "refused"],
  ["^\\8$", "8", "refused"],
  ["(?U)a+", "a", "refused"],
];

describe("Go expressions", () => {
  it.each(ROWS)("%s on %j → %s", (source, input, want) => {
    const r = parseGoRegExp(source);
    expect(r.ok ? r.regexp.test(input) : "refused").toBe(want);
  });

  it("a refusal says why", () => {
    expect(parseGoRegExp("^a\\y$")).toEqual({ ok: false, reason: "invalid escape sequence \\y" });
    expect(parseGoRegExp("^[[:^digit:]]$")).toEqual({ ok: false, reason: "negated POSIX classes such as [:^digit:] are not supported" });
  });
});
