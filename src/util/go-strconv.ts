/** Go's strconv parsing rules where YuniKorn-compatible values are read with them. Pure. */

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** strconv.ParseBool: `1 t T TRUE true True` / `0 f F FALSE false False`; anything else (also with spaces) is undefined. */
export function parseGoBool(v: string): boolean | undefined {
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return undefined;
}
