import type { z } from "zod";

/** Formats a zod error as `prefix.path: message; …` (at most five issues). */
export function formatZodError(prefix: string, err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".")}: ${i.message}`)
    .join("; ");
}
