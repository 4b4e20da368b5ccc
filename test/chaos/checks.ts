import { parse } from 'csv-parse/sync';
import type { GeneratedFile, LineExpectation } from './generate.js';
import type { BridgeProcess, LogRecord } from './processes.js';

/** What the harness saw and did, in the order it happened. */
export interface ChaosEvent {
  at: number;
  kind: 'drop' | 'kill' | 'start' | 'sigstop' | 'sigcont' | 'pg-restart' | 'pg-back' | 'outage' | 'service-back' | 'journal-cut' | 'journal-back' | 'one-shot' | 'chaos-end' | 'drained' | 'stop';
  label?: string;
  pid?: number;
  detail?: string;
}

/** Everything the end checks read: the drop's folders, the service's state, the journal's rows, the logs. */
export interface Evidence {
  tag: string;
  files: GeneratedFile[];
  folders: Record<'inbox' | 'outbox' | 'archive' | 'error', string[]>;
  read(folder: 'outbox' | 'archive' | 'error', name: string): Buffer;
  /** Work lists of the export job are named `${exportPrefix}…`. */
  exportPrefix: string;
  emulator: { adjustments: any[]; counts: any[]; customer_shipments: any[]; supplier_shipments: any[] };
  journal: {
    files: any[];
    exports: any[];
    exportRecords: any[];
    fileEvents: any[];
    /** Requests still pending or sent (none once every file is finished). */
    openRequests: any[];
    /** The instances table (several instances on one journal), when the journal has it. */
    instances?: any[];
    jobTicks?: any[];
  };
  processes: BridgeProcess[];
  events: ChaosEvent[];
  exportJob: string;
}

export interface Verdict {
  problems: string[];
  figures: Record<string, string | number>;
}

const STAMP = /\.\d{8}T\d{9}Z(?:-\d+)?/g;
/** A name without the collision suffixes the drops add (`NAME.20261122T032001123Z.csv`). */
const unstamped = (name: string) => name.replace(STAMP, '');
const resultNameOf = (name: string) => `${name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : name}.result.csv`;

export function checkRun(ev: Evidence): Verdict {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < 200) problems.push(text);
    else if (problems.length === 200) problems.push('… more problems left out');
  };
  const figures: Verdict['figures'] = {};
  const ours = (name: string) => name.includes(ev.tag);

  // ---- the drop: every input left the inbox, one archived (or error/) copy, one result file ----
  const inputNames = new Set(ev.files.map((f) => f.name));
  for (const name of ev.folders.inbox.filter((n) => !n.startsWith('.'))) problem(`inbox: ${name} is still there`);
  const byUnstamped = (list: string[]) => {
    const map = new Map<string, string[]>();
    for (const name of list) map.set(unstamped(name), [...(map.get(unstamped(name)) ?? []), name]);
    return map;
  };
  const archive = byUnstamped(ev.folders.archive);
  const errors = byUnstamped(ev.folders.error);
  const outbox = byUnstamped(ev.folders.outbox);
  for (const name of ev.folders.archive) if (!inputNames.has(unstamped(name))) problem(`archive/: ${name} is no input of this run`);
  const results = new Map<string, Map<number, Record<string, string>>>();
  for (const file of ev.files) {
    const archived = archive.get(file.name) ?? [];
    const failed = errors.get(file.name) ?? [];
    const reasons = errors.get(`${file.name}.error.txt`) ?? [];
    const resultFiles = outbox.get(resultNameOf(file.name)) ?? [];
    if (file.kind === 'rejected') {
      if (failed.length !== 1 || archived.length !== 0) problem(`${file.name}: rejected file: ${failed.length} copies in error/ (${failed.join(', ')}), ${archived.length} in archive/; expected 1 and 0`);
      if (reasons.length !== 1) problem(`${file.name}: ${reasons.length} reason files in error/ (${reasons.join(', ')}); expected 1`);
      if (resultFiles.length > 0) problem(`${file.name}: rejected before reading, yet result files ${resultFiles.join(', ')}`);
      continue;
    }
    if (archived.length !== 1 || failed.length !== 0) problem(`${file.name}: ${archived.length} copies in archive/ (${archived.join(', ')}), ${failed.length} in error/ (${failed.join(', ')}); expected 1 and 0`);
    if (resultFiles.length !== 1) {
      problem(`${file.name}: ${resultFiles.length} result files (${resultFiles.join(', ')}); expected 1`);
      if (resultFiles.length === 0) continue;
    }
    const rows = parse(ev.read('outbox', resultFiles[0]!), { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>;
    const byLine = new Map<number, Record<string, string>>();
    for (const row of rows) {
      const line = Number(row.line);
      if (byLine.has(line)) problem(`${file.name}: result file has line ${line} twice`);
      byLine.set(line, row);
    }
    for (const line of file.lines.keys()) if (!byLine.has(line)) problem(`${file.name}: result file has no row for line ${line}`);
    results.set(file.name, byLine);
  }

  // ---- rows against the service's state: each applied exactly once, or reported uncertain (never twice) ----
  const tally = { ok: 0, error: 0, skipped: 0, uncertain: 0, uncertainApplied: 0 };
  const moves = new Map<string, any[]>();
  for (const m of ev.emulator.adjustments) if (typeof m.reference === 'string' && ours(m.reference)) moves.set(m.reference, [...(moves.get(m.reference) ?? []), m]);
  const counts = new Map<string, any[]>();
  for (const c of ev.emulator.counts) if (typeof c.reference === 'string' && ours(c.reference)) counts.set(c.reference, [...(counts.get(c.reference) ?? []), c]);
  const writesOf = (records: any[], endpoint: RegExp) => new Map(records.map((r) => [r.id as number, (r.writes as any[]).filter((w) => endpoint.test(w.endpoint))]));
  const shipWrites = writesOf(ev.emulator.customer_shipments, /ship/i);
  const receiveWrites = writesOf(ev.emulator.supplier_shipments, /receive/i);
  const applications = (e: LineExpectation): { found: number; what: string } => {
    switch (e.kind) {
      case 'adjustment': {
        const list = moves.get(e.reference) ?? [];
        const wrong = list.filter((m) => m.product_code !== e.sku || Number(m.quantity) !== e.quantity);
        if (wrong.length > 0) problem(`adjustment ${e.reference}: applied with other values ${JSON.stringify(wrong)}`);
        return { found: list.length, what: `adjustment ${e.reference}` };
      }
      case 'count':
        return { found: (counts.get(e.reference) ?? []).length, what: `count ${e.reference}` };
      case 'ship':
        return { found: (shipWrites.get(e.id) ?? []).length, what: `ship of ${e.number}` };
      case 'receipt':
        return { found: (receiveWrites.get(e.id) ?? []).length, what: `receipt of ${e.number}` };
    }
  };
  // Files with the same bytes (an original and its re-drops): exactly one of them applies, the others are duplicates.
  const groups = new Map<string, GeneratedFile[]>();
  for (const f of ev.files.filter((f) => f.kind !== 'rejected')) groups.set(f.original ?? f.name, [...(groups.get(f.original ?? f.name) ?? []), f]);
  const checkedDocs = new Set<string>();
  for (const [first, group] of groups) {
    const appliers = group.filter((f) => {
      const rows = results.get(f.name);
      return rows !== undefined && ![...rows.values()].every((r) => r.status === 'skipped' && /duplicate/i.test(r.message ?? ''));
    });
    if (group.length > 1 && appliers.length !== 1) problem(`${first} and its re-drops: ${appliers.length} of them applied (${appliers.map((f) => f.name).join(', ')}); expected exactly 1, the others duplicates`);
    for (const file of appliers.slice(0, 1)) {
      const rows = results.get(file.name)!;
      for (const [line, e] of file.lines) {
        const status = rows.get(line)?.status;
        if (status === undefined) continue;
        tally[status as keyof typeof tally] = (tally[status as keyof typeof tally] ?? 0) + 1;
        // A document over several lines (a shipment, a count) is applied once for all of them.
        const doc = e.kind === 'adjustment' ? e.reference : e.kind === 'count' ? e.reference : `${e.kind}:${e.id}`;
        const firstLineOfDoc = !checkedDocs.has(doc);
        checkedDocs.add(doc);
        const { found, what } = applications(e);
        if (e.kind === 'adjustment' && !e.sent) {
          if (found !== 0) problem(`${file.name} line ${line}: ${what} was never to be sent (refused or skipped by the mapping), yet applied ${found}×`);
          if (status === 'ok' || status === 'uncertain') problem(`${file.name} line ${line}: a row the mapping refuses or skips is ${status}`);
          continue;
        }
        if (status === 'ok' && found !== 1) problem(`${file.name} line ${line}: ${what} is ok in the result file, applied ${found}× in the service`);
        else if (status === 'uncertain' && found > 1) problem(`${file.name} line ${line}: ${what} is uncertain, applied ${found}× in the service`);
        else if (status === 'error' || status === 'skipped') {
          problem(`${file.name} line ${line}: ${what} is ${status} (${rows.get(line)?.message ?? ''}), applied ${found}× — every row of this run applies (a refusal can be a second send)`);
        }
        if (status === 'uncertain' && found === 1 && firstLineOfDoc) tally.uncertainApplied++;
      }
    }
  }
  // Anything of this run the service holds twice, whatever the result files say.
  for (const [reference, list] of moves) if (list.length > 1) problem(`adjustment ${reference} applied ${list.length}× (move ids ${list.map((m) => m.move_id).join(', ')})`);
  for (const [reference, list] of counts) if (list.length > 1) problem(`count ${reference} recorded ${list.length}× (${list.map((c) => c.number).join(', ')})`);
  for (const [id, list] of [...shipWrites, ...receiveWrites]) if (list.length > 1) problem(`record ${id}: ${list.length} writes ${list.map((w) => `${w.endpoint}@${w.at}`).join(', ')}`);
  const known = new Set(ev.files.flatMap((f) => [...f.lines.values()].flatMap((e) => (e.kind === 'adjustment' || e.kind === 'count' ? [e.reference] : []))));
  for (const reference of [...moves.keys(), ...counts.keys()]) if (!known.has(reference)) problem(`the service holds ${reference}, which no input row carries`);

  // ---- the journal: nothing left processing; one file row per input read ----
  const journalFiles = ev.journal.files.filter((f) => ours(f.name));
  for (const f of journalFiles.filter((f) => f.status === 'processing')) problem(`journal: file ${f.id} ${f.name} is still processing (lease ${f.lease_owner ?? '-'} token ${f.lease_token ?? '-'})`);
  for (const r of ev.journal.openRequests) problem(`journal: request ${r.id} of ${r.name} is still ${r.status}`);
  // A kill between the move and its record leaves the move unrecorded (the file is in archive/ all the same; only a
  // file still in the inbox is finished on restart): counted, not a failure.
  const unrecorded = journalFiles.filter((f) => f.status !== 'processing' && !f.disposed_to).map((f) => f.name);
  const perName = new Map<string, number>();
  for (const f of journalFiles) perName.set(f.name, (perName.get(f.name) ?? 0) + 1);
  for (const [name, n] of perName) if (n > 1) problem(`journal: ${n} file rows for ${name}`);
  for (const f of journalFiles) {
    const resultFiles = outbox.get(resultNameOf(f.name)) ?? [];
    if (f.result_name && !resultFiles.includes(f.result_name)) problem(`journal: file ${f.name} records the result name ${f.result_name}, the outbox has ${resultFiles.join(', ') || 'none'}`);
  }

  // Duplicates are the re-drops only: an input recorded as a duplicate of itself was read by a second instance while
  // its owner finished it.
  const redrops = new Set(ev.files.filter((f) => f.kind === 'duplicate').map((f) => f.name));
  const duplicateEvents = ev.journal.fileEvents.filter((e) => e.kind === 'duplicate' && ours(e.name));
  for (const e of duplicateEvents) {
    if (!redrops.has(e.name) && !ev.files.some((f) => f.original === e.name)) problem(`journal: ${e.name} recorded as a duplicate (event ${e.id}, result ${e.result_name ?? '-'}) though it was dropped once`);
  }
  unrecorded.push(...duplicateEvents.filter((e) => !e.disposed_to).map((e) => `${e.name} (duplicate event ${e.id})`));
  figures['moves not recorded in the journal'] = unrecorded.length === 0 ? 0 : `${unrecorded.length}: ${unrecorded.join(', ')}`;
  const rejectedEvents = ev.journal.fileEvents.filter((e) => e.kind === 'rejected' && ours(e.name));
  figures['duplicate events'] = `${duplicateEvents.length} (${redrops.size} re-drops in the input); rejected events ${rejectedEvents.length} (${new Set(rejectedEvents.map((e) => e.name)).size} files)`;

  // ---- the export job: one work list per tick, no record on two work lists ----
  const workLists = ev.folders.outbox.filter((n) => n.startsWith(ev.exportPrefix) && !n.endsWith('.ack.csv'));
  const listedIn = new Map<string, string[]>();
  for (const name of workLists) {
    const rows = parse(ev.read('outbox', name), { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>;
    for (const id of new Set(rows.map((r) => r.ORDER_ID!))) listedIn.set(id, [...(listedIn.get(id) ?? []), name]);
  }
  for (const [id, names] of listedIn) if (names.length > 1) problem(`export: shipment ${id} is on ${names.length} work lists: ${names.join(', ')}`);
  const exportsByName = new Map<string, any>(ev.journal.exports.filter((e) => e.kind === 'work').map((e) => [e.file_name, e]));
  for (const name of workLists) {
    const row = exportsByName.get(name);
    if (!row) problem(`export: ${name} is in the outbox but not in the journal`);
  }
  for (const [name, row] of exportsByName) {
    if ((row.status === 'written' || row.status === 'completed') && !workLists.includes(name)) problem(`export: the journal says ${name} was written (${row.status}); it is not in the outbox`);
  }
  const acknowledged = new Map(ev.emulator.customer_shipments.map((s) => [String(s.id), s.acknowledged_at]));
  for (const r of ev.journal.exportRecords) {
    if (r.ack_status === 'acknowledged' && !acknowledged.get(String(r.record_id))) problem(`export: the journal says ${r.record_id} was acknowledged; the service has no acknowledgement`);
  }
  const deferred = ev.emulator.customer_shipments.filter((s) => s.origin_kind === 'deferred');
  // The scheduler's ticks of the export job (`job:NAME`): each run writes one work list or fails (empty_files, and never more
  // work than max_records_per_file), and a tick runs again only when its owner died or was paused past its lease
  // (another instance takes the tick over with token + 1).
  const ticks = ev.journal.jobTicks?.filter((t) => t.job === `job:${ev.exportJob}`);
  if (ticks) {
    const done = ticks.filter((t) => t.done_at).length;
    const runs = ticks.reduce((n, t) => n + Number(t.token), 0);
    const live = ev.journal.exports.filter((e) => e.kind === 'work' && e.status !== 'abandoned').length;
    if (live > runs) problem(`export: ${live} work lists for ${ticks.length} ticks claimed ${runs} times: some tick ran twice without a takeover`);
    // A run that failed (the journal or the service out of reach past its retries) is over too: its tick is done, and
    // the next tick lists its records again.
    const failed = ev.processes.flatMap((p) => p.logs).filter((r) => r.event === 'job.run.failed' && r.job === ev.exportJob).length;
    // A run whose records all went into another instance's list meanwhile (overlapping ticks) has nothing to write.
    const leftToOthers = ev.processes.reduce((n, p) => n + runsLeftToOtherLists(p.logs, ev.exportJob), 0);
    if (live + failed + leftToOthers < done) {
      problem(`export: ${live} work lists, ${failed} failed runs and ${leftToOthers} runs whose records another list took, for ${done} ticks that ran to their end: some tick wrote nothing`);
    }
    figures['export ticks'] = `${ticks.length} claimed (${runs - ticks.length} taken over), ${done} done, by ${new Set(ticks.map((t) => t.owner)).size} instances`;
  }
  figures['export work lists'] = `${workLists.length} files, ${listedIn.size} shipments (${deferred.length} deferred shipments were created by the ship files)`;
  checkExportOwners(ev, problem, figures);

  // ---- logs: takeovers, refused stale writes ----
  const all = ev.processes.flatMap((p) => p.logs.map((record) => ({ p, record })));
  const leaseLost = all.filter(({ record }) => JSON.stringify(record).includes('LEASE_LOST'));
  const failedRuns = all.filter(({ record }) => record.msg === 'job run failed');
  figures['failed job runs in logs'] = failedRuns.length === 0 ? 0
    : `${failedRuns.length}: ${[...new Set(failedRuns.map(({ record }) => String(record.err).replace(/ \S+\.csv.*| \d+.*/, '…')))].join('; ')}`;
  figures['LEASE_LOST in logs'] = `${leaseLost.length} lines from ${new Set(leaseLost.map(({ p }) => p.label)).size} processes`;
  const claims = all.filter(({ record }) => record.msg === 'processing file').sort((a, b) => a.record.seenAt - b.record.seenAt);
  const byFile = new Map<string, Array<{ p: BridgeProcess; record: LogRecord }>>();
  for (const c of claims) byFile.set(c.record.file, [...(byFile.get(c.record.file) ?? []), c]);
  const takeovers: Array<{ file: string; from: BridgeProcess; to: BridgeProcess; at: number }> = [];
  for (const [file, list] of byFile) {
    for (let i = 1; i < list.length; i++) if (list[i]!.p !== list[i - 1]!.p) takeovers.push({ file, from: list[i - 1]!.p, to: list[i]!.p, at: list[i]!.record.seenAt });
  }
  figures.takeovers = takeovers.length;
  // Time to takeover: from the kill (and from the killed instance's last heartbeat, when the journal has it) to the
  // next claim of each file it held.
  const kills = ev.events.filter((e) => e.kind === 'kill');
  const heartbeats = new Map((ev.journal.instances ?? []).map((i) => [i.id as string, Date.parse(i.heartbeat_at)]));
  const afterKill: number[] = [];
  const afterHeartbeat: number[] = [];
  for (const t of takeovers) {
    const kill = kills.find((k) => k.pid === t.from.pid);
    if (!kill || t.at < kill.at) continue;
    afterKill.push(t.at - kill.at);
    const beat = t.from.instanceId ? heartbeats.get(t.from.instanceId) : undefined;
    if (beat !== undefined && !Number.isNaN(beat)) afterHeartbeat.push(t.at - beat);
  }
  figures['time to takeover after kill -9'] = spread(afterKill);
  if (afterHeartbeat.length > 0) figures['time to takeover after the last heartbeat'] = spread(afterHeartbeat);
  // A paused instance whose file was taken over meanwhile must not finish that file (it records nothing more for it).
  const afterStop: number[] = [];
  for (const stop of ev.events.filter((e) => e.kind === 'sigstop')) {
    const cont = ev.events.find((e) => e.kind === 'sigcont' && e.pid === stop.pid && e.at >= stop.at);
    const paused = ev.processes.find((p) => p.pid === stop.pid);
    if (!paused || !cont) continue;
    for (const t of takeovers.filter((t) => t.from === paused && t.at >= stop.at && t.at <= cont.at)) {
      afterStop.push(t.at - stop.at);
      // Its own later claim of the file (taken over back from another, after SIGCONT) may finish it.
      const reclaim = paused.logs.find((r) => r.file === t.file && r.seenAt >= cont.at && r.msg === 'processing file');
      const finished = paused.logs.find((r) => r.file === t.file && r.seenAt >= cont.at && (!reclaim || r.seenAt < reclaim.seenAt)
        && /^(file processed|file rejected|duplicate file)/.test(r.msg ?? ''));
      if (finished) problem(`${paused.label} was paused while ${t.file} was taken over by ${t.to.label}, and still logged "${finished.msg}" for it after SIGCONT`);
    }
  }
  if (ev.events.some((e) => e.kind === 'sigstop')) figures['time to takeover after SIGSTOP'] = spread(afterStop);

  figures.rows = `${tally.ok} ok, ${tally.uncertain} uncertain (${tally.uncertainApplied} of them applied), ${tally.error} error, ${tally.skipped} skipped`;
  const tokens = journalFiles.filter((f) => f.lease_token !== undefined);
  figures['journal files'] = `${journalFiles.length}${tokens.length > 0 ? ` (takeovers by their lease tokens: ${tokens.reduce((n, f) => n + Math.max(0, Number(f.lease_token) - 1), 0)}, on ${tokens.filter((f) => Number(f.lease_token) > 1).length} files)` : ''}`;
  return { problems, figures };
}

function spread(values: number[]): string {
  if (values.length === 0) return 'none';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `${values.length}×, min ${(sorted[0]! / 1000).toFixed(1)} s, median ${(at(0.5) / 1000).toFixed(1)} s, max ${(sorted.at(-1)! / 1000).toFixed(1)} s`;
}

/**
 * Unwritten exports are taken over only from an owner that was not live: one killed, SIGSTOPped, stopped, or whose own
 * log says its heartbeat went unanswered past what a lease allows; another instance's export run left the others to
 * them (`export.held`), whatever the ticks' overlap.
 */
function checkExportOwners(ev: Evidence, problem: (text: string) => void, figures: Record<string, string | number>): void {
  const byInstance = new Map(ev.processes.filter((p) => p.instanceId).map((p) => [p.instanceId!, p]));
  const stopped = new Set(ev.events.filter((e) => e.kind === 'kill' || e.kind === 'sigstop').map((e) => e.pid));
  const held = ev.processes.flatMap((p) => p.logs.filter((r) => r.event === 'export.held'));
  const taken = ev.processes.flatMap((p) => p.logs.filter((r) => r.event === 'export.taken-over').map((r) => ({ p, r })));
  for (const { p, r } of taken) {
    const owner = r.from === null || r.from === undefined ? undefined : byInstance.get(r.from);
    if (!owner || owner === p || stopped.has(owner.pid)) continue;
    const silent = owner.logs.some((x) => typeof x.msg === 'string' && x.msg.startsWith('no heartbeat answered for too long'));
    if (!silent) problem(`export: ${p.label} took ${r.file} over (${r.outcome}) from ${owner.label}, which was never killed, paused or silent`);
  }
  figures['unwritten exports'] = `${held.length} left to a live owner, ${taken.length} taken over `
    + `(${taken.filter(({ r }) => r.outcome === 'abandoned').length} abandoned, ${taken.filter(({ r }) => r.outcome === 'written').length} found written)`;
}

/** Export runs of one process that ended without a list because another instance's list took all their records. */
function runsLeftToOtherLists(logs: readonly LogRecord[], job: string): number {
  let taken = false;
  let count = 0;
  for (const r of logs) {
    if (r.job !== job) continue;
    if (r.event === 'job.run.started') taken = false;
    else if (r.msg === 'export: records handed over meanwhile by another job are left out') taken = true;
    else if (r.event === 'job.run.finished' && r.exports === 0 && taken) count++;
  }
  return count;
}
