/**
 * The application life cycle as one event table (apache/yunikorn-core pkg/scheduler/objects/application_state.go;
 * yunikorn-core reference §4.2). Every state change of an application goes through `nextState`; the partition fires
 * the events and runs what entering a state means (running counts, leaving the queue, timers).
 *
 * corral's additions to upstream's table, each with its reason:
 * - `Starting` (upstream ≤ 1.5): `startApplication` Accepted → Starting at the first allocation unless the application
 *   disables state awareness; Starting → Running on the next allocation or after 5 minutes (design 000).
 * - `Reserving` (gang scheduling): `reserveApplication` Accepted → Reserving while placeholders are being allocated;
 *   Reserving → Running once the gang is complete, → Resuming / Failing on a soft / hard placeholder timeout,
 *   → Completing when its last ask goes (as Accepted).
 */

/** Application states (§4.2). */
export type AppState =
  | "New"
  | "Accepted"
  | "Reserving"
  | "Resuming"
  | "Starting"
  | "Running"
  | "Completing"
  | "Completed"
  | "Failing"
  | "Failed"
  | "Rejected"
  | "Expired";

/** Events of the life cycle (upstream's internal names). */
export type AppEvent =
  | "runApplication"
  | "startApplication"
  | "reserveApplication"
  | "rejectApplication"
  | "completeApplication"
  | "failApplication"
  | "expireApplication"
  | "resumeApplication";

/** event → [sources, destination] rows; the first row whose sources hold the current state applies. */
export const APPLICATION_TRANSITIONS: Readonly<Record<AppEvent, readonly (readonly [readonly AppState[], AppState])[]>> = {
  rejectApplication: [[["New"], "Rejected"]],
  runApplication: [
    [["New", "Resuming"], "Accepted"],
    [["Accepted", "Reserving", "Starting", "Running", "Completing"], "Running"],
  ],
  startApplication: [[["Accepted"], "Starting"]],
  reserveApplication: [[["Accepted"], "Reserving"]],
  completeApplication: [
    [["Accepted", "Reserving", "Starting", "Running"], "Completing"],
    [["Completing"], "Completed"],
  ],
  failApplication: [
    [["New", "Accepted", "Reserving", "Starting", "Running"], "Failing"],
    [["Failing"], "Failed"],
  ],
  resumeApplication: [[["New", "Accepted", "Reserving"], "Resuming"]],
  expireApplication: [[["Completed", "Failed", "Rejected"], "Expired"]],
};

/** `APPLICATION_TRANSITIONS` as a lookup: event → state → the state it leads to (the first row naming the state). */
const NEXT_STATE: ReadonlyMap<AppEvent, ReadonlyMap<AppState, AppState>> = new Map(
  Object.entries(APPLICATION_TRANSITIONS).map(([event, rows]) => {
    const next = new Map<AppState, AppState>();
    for (const [from, to] of rows) for (const s of from) if (!next.has(s)) next.set(s, to);
    return [event as AppEvent, next];
  }),
);

/**
 * The state `event` leads to from `state` (the same state: no transition, as upstream's FSM).
 * @throws Error `event <e> inappropriate in current state <s>` (upstream's text) when the table has no row
 */
export function nextState(state: AppState, event: AppEvent): AppState {
  const to = NEXT_STATE.get(event)?.get(state);
  if (to === undefined) throw new Error(`event ${event} inappropriate in current state ${state}`);
  return to;
}

/** States counted as running by a queue's `maxapplications` and `runningApps` (upstream: Running; corral: Starting too). */
export const RUNNING_STATES: ReadonlySet<AppState> = new Set(["Starting", "Running"]);

/** States in which pending asks are scheduled. */
export const SCHEDULABLE_STATES: ReadonlySet<AppState> = new Set(["Accepted", "Reserving", "Starting", "Running"]);

/** Terminal states kept for listing until they expire (`terminatedTimeout`, 3 days). */
export const TERMINATED_STATES: ReadonlySet<AppState> = new Set(["Completed", "Failed", "Rejected"]);

/** Upstream timers (§4.2, §6), milliseconds. */
export const STARTING_TIMEOUT_MS = 5 * 60_000;
/** Completing → Completed after 30 s without new asks (upstream `completingTimeout`), milliseconds. */
export const COMPLETING_TIMEOUT_MS = 30_000;
/** How long Completed, Failed and Rejected applications are kept for listing: 3 days (upstream `terminatedTimeout`), milliseconds. */
export const TERMINATED_TIMEOUT_MS = 3 * 86_400_000;

/** One entry of an application's state history. */
export interface StateLogEntry {
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly state: AppState;
}
