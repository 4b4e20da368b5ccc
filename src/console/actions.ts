import type { Readable } from 'node:stream';
import { describeError, isWisbridgeError, WisbridgeError } from '../errors.js';
import type { ConsoleJournal, Resolution } from '../journal/index.js';
import { errorFileName, openResultFile, redriveFile, resolveRows } from '../pipeline/index.js';
import type { RedriveReport } from '../pipeline/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { describeForConsole } from './paths.js';
import { chosenRequests, type UncertainChoice } from './pages-uncertain.js';
import type { ConsoleSource } from './source.js';

/**
 * The console's actions. Each goes through the same code as its CLI command (retry, resolve) and is recorded
 * in the journal's operator_actions with who and when, whether it worked or not.
 */
export interface ActionResult {
  ok: boolean;
  message: string;
  /** Its entry in the audit trail (operator_actions); absent when nothing was attempted (the bridge is stopping). */
  actionId?: number;
}

export interface ActionEntry {
  action: string;
  fileId: number | null;
  target: string | null;
  actor: string;
}

export async function recorded(source: ConsoleSource, entry: ActionEntry, run: () => Promise<string>): Promise<ActionResult> {
  if (source.actions.closed) return { ok: false, message: 'the bridge is stopping: nothing was done; try again once it is back' };
  return source.actions.run(async () => {
    let result: ActionResult;
    try {
      result = { ok: true, message: await run() };
    } catch (error) {
      if (!isWisbridgeError(error)) throw error;
      result = { ok: false, message: describeForConsole(error, source.runtime.loaded) };
    }
    return { ...result, actionId: await record(source.runtime, entry, 'console', result) };
  });
}

async function record(runtime: RuntimeParts<'logger', { readonly console: Pick<ConsoleJournal, 'recordAction'> }>, entry: ActionEntry, via: 'console' | 'cli', result: ActionResult): Promise<number> {
  const id = await (await runtime.journal()).console.recordAction({ ...entry, via, detail: result.message, outcome: result.ok ? 'ok' : 'failed' });
  runtime.logger.info({ action: entry.action, fileId: entry.fileId, target: entry.target, by: entry.actor, via, outcome: result.ok ? 'ok' : 'failed' }, 'operator action');
  return id;
}

/**
 * `wisbridge retry` / `resolve`: the same audit trail as the console's actions (via cli), whether the command worked
 * or not; the command's own error is passed on.
 */
export async function recordedCli<T>(runtime: RuntimeParts<'logger', { readonly console: Pick<ConsoleJournal, 'recordAction'> }>, entry: Omit<ActionEntry, 'fileId'>, run: () => Promise<T & { fileId: number }>, describe: (r: T) => string): Promise<T> {
  let fileId: number | null = null;
  try {
    const report = await run();
    fileId = report.fileId;
    await record(runtime, { ...entry, fileId }, 'cli', { ok: true, message: describe(report) });
    return report;
  } catch (error) {
    if (isWisbridgeError(error)) await record(runtime, { ...entry, fileId }, 'cli', { ok: false, message: describeError(error) }).catch(() => undefined);
    throw error;
  }
}

/** The status a file was left in, from the detail redrive and resolve below write (`file is now …`); undefined for other actions. */
export function fileStatusAfter(detail: string | null): string | undefined {
  // The last match: a resolution's note, earlier in the text, is the operator's own words.
  return detail?.match(/^[^]*; file is now (\w+);/)?.[1];
}

/** Whether an action's detail says its file was left failed. */
export const fileLeftFailed = (detail: string | null): boolean => fileStatusAfter(detail) === 'failed';

export function redrive(source: ConsoleSource, fileId: number, actor: string): Promise<ActionResult> {
  return recorded(source, { action: 'redrive', fileId, target: null, actor }, async () => {
    const journal = await source.runtime.journal();
    const file = await journal.getFile(fileId);
    const { sendable, unsendable } = await journal.console.failedRows(fileId);
    // A re-drive a crash stopped is taken up whatever is left to send: its requests in flight are reconciled.
    const interrupted = file.status === 'processing' && file.redrives > 0;
    if (!interrupted && (file.status !== 'failed' || sendable === 0)) {
      const rejected = unsendable > 0 ? `; ${unsendable} row(s) were rejected by the mapping: fix them in the file and drop the corrected rows again` : '';
      throw new WisbridgeError('USAGE', `nothing to re-drive: no row of ${file.name} (file ${fileId}) can be sent again (the file is ${file.status})${rejected}`);
    }
    return redriveDetail(await redriveFile(source.runtime, String(fileId)));
  });
}

/** A re-drive's entry in the actions log (fileStatusAfter reads the file's status back from it). */
export function redriveDetail(r: Pick<RedriveReport, 'attempt' | 'sent' | 'ok' | 'error' | 'uncertain' | 'status' | 'resultAt'>): string {
  return `re-drive ${r.attempt - 1}: ${r.sent} row(s) sent again, ${r.ok} ok, ${r.error} error, ${r.uncertain} uncertain; file is now ${r.status}; result file rewritten: ${r.resultAt}`;
}

export async function resolve(source: ConsoleSource, fileId: number, itemId: number, resolution: Resolution, note: string, actor: string): Promise<ActionResult> {
  // The audit log names the row as operators know it: by its line(s) in the file (an item's lines never change).
  const lines = await rowLines(source, fileId, itemId);
  return recorded(source, { action: `resolve ${resolution}`, fileId, target: lines ? `line ${lines}` : `row ${itemId}`, actor }, async () => {
    const journal = await source.runtime.journal();
    const item = (await journal.uncertainItems(fileId, { limit: 1_000_000 })).find((i) => i.itemId === itemId);
    if (!item) throw new WisbridgeError('JOURNAL_STATE', `row ${itemId} of file ${fileId} is not uncertain (resolved already?)`);
    const r = await resolveRows(source.runtime, String(fileId), { lines: item.lines, resolution, note, by: actor });
    return `line(s) ${item.lines.join(', ')} marked ${resolution === 'applied' ? 'applied (ok)' : 'not applied (error)'}: "${note}"; file is now ${r.status}; result file rewritten: ${r.resultAt}`;
  });
}

/**
 * Uncertain rows resolved at once: whole files and chosen requests (a request was sent whole, so its rows were applied or
 * not together), through the same code as `wisbridge resolve --lines`, a file at a time (each file's result rewritten
 * once). One entry of the actions log names what was chosen and what came of each file.
 */
export async function resolveChoice(source: ConsoleSource, choice: UncertainChoice, resolution: Resolution, note: string, actor: string): Promise<ActionResult> {
  const journal = await source.runtime.journal();
  const requests = chosenRequests(await journal.console.uncertainRequests(), choice);
  const files = [...new Set(requests.map((r) => r.fileId))];
  const target = [choice.files.length ? `files ${choice.files.join(', ')}` : '', choice.requests.length ? `requests ${choice.requests.join(', ')}` : ''].filter(Boolean).join('; ');
  return recorded(source, { action: `resolve ${resolution}`, fileId: files.length === 1 ? files[0] : null, target: target || 'nothing chosen', actor }, async () => {
    if (files.length === 0) throw new WisbridgeError('JOURNAL_STATE', 'none of the chosen rows is uncertain (resolved already?)');
    const wholeFiles = new Set(choice.files);
    const done: string[] = [];
    let resolved = 0;
    for (const fileId of files) {
      const wanted = new Set(requests.filter((r) => r.fileId === fileId).map((r) => r.requestId));
      const items = (await journal.uncertainItems(fileId, { limit: 1_000_000 })).filter((i) => wholeFiles.has(fileId) || wanted.has(i.requestId));
      if (items.length === 0) continue;
      const r = await resolveRows(source.runtime, String(fileId), { lines: [...new Set(items.flatMap((i) => i.lines))], resolution, note, by: actor });
      resolved += r.resolved;
      done.push(`${r.name} (file ${fileId}): ${r.resolved} row(s), file now ${r.status}`);
    }
    return `${resolved} uncertain row(s) marked ${resolution === 'applied' ? 'applied (ok)' : 'not applied (error)'}: "${note}"; ${done.join('; ')}`;
  });
}

/** The input line(s) of an item of the file, as `7` or `7-9`; undefined when the file has no such uncertain row. */
async function rowLines(source: ConsoleSource, fileId: number, itemId: number): Promise<string | undefined> {
  const item = (await (await source.runtime.journal()).uncertainItems(fileId, { limit: 1_000_000 })).find((i) => i.itemId === itemId);
  if (!item) return undefined;
  const { lines } = item;
  return lines.length > 1 && lines[lines.length - 1] - lines[0] === lines.length - 1 ? `${lines[0]}-${lines[lines.length - 1]}` : lines.join(', ');
}

const REASON_SUFFIX = '.error.txt';

/**
 * Whether `name` is a rejected file that re-processing may move: a plain name (no folder, no `..`), not a reason
 * file, lying in the error/ folder of a drop an inbound job reads. Throws a WisbridgeError saying why not.
 */
export async function checkReprocessable(source: ConsoleSource, dropKey: string, name: string): Promise<void> {
  const { config } = source.runtime.loaded;
  if (!Object.hasOwn(config.drops, dropKey) || !config.inbound.some((j) => j.drop === dropKey)) throw new WisbridgeError('USAGE', `"${dropKey}" is not a drop an inbound job reads: nothing to re-process`);
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new WisbridgeError('USAGE', `"${name}" is not a file name of the error/ folder (no folders, no ..): only files listed on the Rejected page can be re-processed`);
  }
  if (name.endsWith(REASON_SUFFIX)) {
    throw new WisbridgeError('USAGE', `"${name}" is the reason file of a rejection, not a rejected file: re-process ${name.slice(0, -REASON_SUFFIX.length)} instead`);
  }
  const drop = await source.runtime.drop(dropKey);
  if (!(await drop.stat('error', name))) throw new WisbridgeError('DROP_NOT_FOUND', `error/${name} is not in drop ${dropKey} (re-processed already, or never rejected): nothing was moved`);
}

/** Moves a rejected file from error/ back to the inbox (its reason file is removed): the next run or the watcher takes it. */
export function reprocess(source: ConsoleSource, dropKey: string, name: string, actor: string): Promise<ActionResult> {
  return recorded(source, { action: 'reprocess', fileId: null, target: `${dropKey}:error/${name}`, actor }, async () => {
    await checkReprocessable(source, dropKey, name);
    const drop = await source.runtime.drop(dropKey);
    const moved = await drop.move('error', name, 'inbox');
    await drop.remove('error', errorFileName(name));
    const watched = source.runtime.loaded.config.inbound.some((j) => j.drop === dropKey && j.watch);
    return `error/${name} moved to inbox/${moved}; ${source.mode === 'run' && watched ? 'the watcher processes it next' : 'the next run of its job processes it'}`;
  });
}

/** An operator saw to several alerts at once (a selection, an incident): one entry in the actions log names them all. */
export async function acknowledgeAlerts(source: ConsoleSource, ids: readonly number[], actor: string): Promise<ActionResult> {
  return recorded(source, { action: 'acknowledge alerts', fileId: null, target: `alerts ${ids.join(', ')}`, actor }, async () => {
    if (ids.length === 0) throw new WisbridgeError('USAGE', 'no alert was chosen');
    const done = await (await source.runtime.journal()).console.acknowledgeAlerts(ids, actor);
    if (done.length === 0) throw new WisbridgeError('JOURNAL_STATE', `alerts ${ids.join(', ')} were acknowledged already`);
    const left = ids.filter((id) => !done.includes(id));
    return `${done.length} alert(s) acknowledged: ${done.join(', ')}${left.length ? `; acknowledged already: ${left.join(', ')}` : ''}`;
  });
}

/** An operator saw to an alert: it leaves the open alerts (recorded in the actions log). */
export async function acknowledge(source: ConsoleSource, alertId: number, actor: string): Promise<ActionResult> {
  const alert = await (await source.runtime.journal()).console.getAlert(alertId);
  return recorded(source, { action: 'acknowledge alert', fileId: alert?.fileId ?? null, target: `alert ${alertId}${alert ? `: ${alert.kind} ${alert.subject}` : ''}`, actor }, async () => {
    if (!alert) throw new WisbridgeError('USAGE', `no alert ${alertId}`);
    if (!(await (await source.runtime.journal()).console.acknowledgeAlert(alertId, actor))) throw new WisbridgeError('JOURNAL_STATE', `alert ${alertId} was acknowledged already`);
    return `alert ${alertId} acknowledged (${alert.kind}: ${alert.message}; seen ${alert.times} time(s) from ${alert.firstSeen} to ${alert.lastSeen})`;
  });
}

/** The file's result file from the outbox, or rebuilt from the journal when it is not there (any more). */
export function openDownload(source: ConsoleSource, fileId: number): Promise<{ name: string; stream: Readable; from: 'outbox' | 'journal' }> {
  return openResultFile(source.runtime, fileId);
}

/** A result file handed to an operator (its headers sent, its bytes about to follow): recorded as a download. */
export async function recordDownload(source: ConsoleSource, fileId: number, opened: { name: string; from: string }, actor: string): Promise<void> {
  const journal = await source.runtime.journal();
  await journal.console.recordAction({ action: 'download', fileId, target: opened.name, actor, via: 'console', detail: `from the ${opened.from}`, outcome: 'ok' });
}
