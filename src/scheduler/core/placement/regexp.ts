/** Go regular expressions in JavaScript (placement filters are written for upstream's Go `regexp`). */

/**
 * A Go (RE2) regular expression as a JavaScript one: leading flag groups such as `(?i)` become flags and `(?P<name>`
 * becomes `(?<name>`. Undefined when it does not compile.
 */
export function goRegExp(source: string): RegExp | undefined {
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
