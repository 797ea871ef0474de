/**
 * Process logger: pino JSON lines on stdout, buffered (one write per ~4 KiB instead of one per line: at one line per
 * admission the per-line write was ~13 % of the webhook's CPU) and flushed every 200 ms and at exit, so a line is
 * never more than 200 ms late and none is lost on a clean stop.
 */
import { pino, type Logger } from "pino";

/** The process logger of the module comment, named `name` at `level` (pino level name). */
export function createLogger(name: string, level: string): Logger {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const log = pino({ name, level }, dest);
  const timer = setInterval(() => dest.flush(), 200);
  timer.unref();
  process.once("exit", () => {
    try {
      dest.flushSync();
    } catch {
      /* stdout already closed */
    }
  });
  return log;
}
