import { existsSync, writeFileSync } from 'node:fs';
import { WisbridgeError } from './errors.js';
import { closestWord } from './util/did-you-mean.js';

/**
 * Named points where a test makes the bridge fail or stop, to prove what a crash or a stalled process leaves behind.
 * One environment variable names the points and what happens there (as TiKV's fail-rs does):
 * `WISBRIDGE_FAILPOINTS="export.after-rename=kill;drop.before-move=pause(/tmp/paused)"`. Unset, every point is one
 * comparison. This list is the documentation: docs/failpoints.md is generated from it.
 */
export const FAILPOINTS = {
  'export.after-record': 'an export: the journal recorded the work-list file and its records, before the file is written',
  'export.after-control-numbers': 'an X12 export: the journal recorded the work list and allocated its control numbers, before the interchange is written',
  'export.after-rename': 'an export: the file was renamed into the outbox, before the journal marks it written',
  'export.after-written': 'an export: the journal marked the file written, before its records are acknowledged',
  'drop.before-move': 'an inbound file was processed and its result written, just before it is moved out of the inbox (archive/ or error/)',
  'send.after-answer': 'an inbound request: the service answered it, before its outcomes are stored in the journal (the request stays sent)',
  'drop.after-link': 'a move on a local drop: the file was linked into the target folder, not yet unlinked from the source folder',
} as const;

export type Failpoint = keyof typeof FAILPOINTS;

/** What happens at a point, and how it is written after `=`. */
export const FAILPOINT_ACTIONS = {
  kill: '`kill`: SIGKILL the process (a crash: no handler, no cleanup, nothing flushed)',
  pause: '`pause(FILE)`: write the process id into FILE, then block the whole process (timers, heartbeats and I/O included, '
    + 'as a stalled machine would) until FILE is removed',
} as const;

export type FailpointAction = { kind: 'kill' } | { kind: 'pause'; file: string };

/** The environment variable read once, when this module is first loaded (in each thread that loads it). */
export const FAILPOINTS_VARIABLE = 'WISBRIDGE_FAILPOINTS';

/** How often a paused process looks whether its file was removed. */
const PAUSE_POLL_MS = 20;

let active: ReadonlyMap<Failpoint, FailpointAction> | undefined;
let refused: WisbridgeError<'FAILPOINTS'> | undefined;

/**
 * The points of a WISBRIDGE_FAILPOINTS value: `point=action` separated by `;`. An unknown point or action is a
 * FAILPOINTS error naming the known ones.
 */
export function parseFailpoints(spec: string): Map<Failpoint, FailpointAction> {
  const points = new Map<Failpoint, FailpointAction>();
  for (const entry of spec.split(';').map((s) => s.trim()).filter((s) => s !== '')) {
    const eq = entry.indexOf('=');
    const name = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const action = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!Object.hasOwn(FAILPOINTS, name)) {
      const near = closestWord(name, Object.keys(FAILPOINTS));
      throw new WisbridgeError('FAILPOINTS', `${FAILPOINTS_VARIABLE}: unknown failpoint "${name}"${near ? ` (did you mean "${near}"?)` : ''}; `
        + `known: ${Object.keys(FAILPOINTS).join(', ')} (docs/failpoints.md)`);
    }
    points.set(name as Failpoint, parseAction(name, action));
  }
  return points;
}

function parseAction(name: string, action: string): FailpointAction {
  if (action === 'kill') return { kind: 'kill' };
  const pause = /^pause\((.+)\)$/.exec(action);
  if (pause) return { kind: 'pause', file: pause[1].trim() };
  throw new WisbridgeError('FAILPOINTS', `${FAILPOINTS_VARIABLE}: failpoint "${name}" has ${action === '' ? 'no action' : `the unknown action "${action}"`}; `
    + 'actions: kill, pause(FILE) (docs/failpoints.md)');
}

/**
 * Sets the active points from a WISBRIDGE_FAILPOINTS value (none when undefined or empty). A value that does not
 * parse leaves no point active and is thrown by checkFailpoints and by every point reached.
 */
export function configureFailpoints(spec: string | undefined): void {
  active = undefined;
  refused = undefined;
  if (spec === undefined || spec.trim() === '') return;
  try {
    active = parseFailpoints(spec);
  } catch (error) {
    refused = error as WisbridgeError<'FAILPOINTS'>;
    active = new Map();
  }
}

/** Throws the FAILPOINTS error of a WISBRIDGE_FAILPOINTS that did not parse (the CLI's start). */
export function checkFailpoints(): void {
  if (refused) throw refused;
}

/** A named point: nothing unless WISBRIDGE_FAILPOINTS names it. */
export function failpoint(point: Failpoint): void {
  if (active === undefined) return;
  if (refused) throw refused;
  const action = active.get(point);
  if (action === undefined) return;
  if (action.kind === 'kill') process.kill(process.pid, 'SIGKILL');
  else pauseUntilRemoved(action.file);
}

/** Blocks this thread, its event loop included, until `file` is gone. */
function pauseUntilRemoved(file: string): void {
  writeFileSync(file, `${process.pid}\n`);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (existsSync(file)) Atomics.wait(cell, 0, 0, PAUSE_POLL_MS);
}

configureFailpoints(process.env[FAILPOINTS_VARIABLE]);
