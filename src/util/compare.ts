/**
 * Compares two numbers as -1, 0 or 1. Comparators return this rather than a difference: a difference that is not a
 * small integer (a fraction, milliseconds since the epoch) is a new heap number on every comparison.
 */
export function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
