import { fileBusy, heldError, liveHolder } from '../leases/leases.js';
import { stateError, type ItemRow } from '../core/rows.js';
import { fileSummaryOn } from '../inbound/inbound-reads.js';
import type { SqlPort } from '../core/sql.js';
import type { FileStatus, ItemStatus, ResolveOptions, ResolveTarget } from '../core/types.js';
import { fileIn, type OperatorContext } from './operator-context.js';

/* What operators do to a file's rows: open a re-drive, resolve uncertain items (OperatorActions). */

/** What resolveUncertain did: items resolved, and the status each of their files has now. */
export interface ResolveResult {
  resolved: number;
  files: Array<{ fileId: number; status: FileStatus }>;
}

/**
 * A file an instance holds is refused: one working on it under a live lease, or finishing it (its move not recorded
 * yet, its lease live). In lease mode the re-drive then takes the file's lease (a fencing token of its own, as a
 * claim does); without an instance (a tool) it takes none.
 */
async function takeLease(c: OperatorContext, t: SqlPort, fileId: number): Promise<void> {
  const holder = c.fence ? await c.fence.holder(t, fileId) : await liveHolder(t, fileId);
  if (holder && (holder.finishing || !c.fence)) throw heldError(fileId, holder);
  const taken = await c.fence?.take(t, fileId);
  if (taken && 'busy' in taken) throw fileBusy(fileId, taken.busy);
}

/**
 * Opens a re-drive of a failed file: resolves the attempt number to pass to recordRequest. A re-drive a crash stopped
 * (the file left processing) is taken again once nobody holds it, and goes on with the same attempt.
 */
export function beginRedrive(c: OperatorContext, fileId: number): Promise<number> {
  return c.sql.tx(async (t) => {
    const file = await fileIn(c, t, fileId);
    if (file.status === 'processing') {
      if (file.redrives === 0) throw stateError(`file ${fileId} is still being processed`);
      await takeLease(c, t, fileId);
      return file.redrives + 1;
    }
    if (file.status !== 'failed') throw stateError(`file ${fileId} is ${file.status}: nothing to retry`);
    if (file.prunedAt !== null) throw stateError(`file ${fileId}: its rows were pruned on ${file.prunedAt} (journal retention): nothing left to retry`);
    await takeLease(c, t, fileId);
    await t.run(c.q.startRedrive, [fileId]);
    return file.redrives + 2;
  });
}

/** A resolution is refused while an instance works on the file or finishes it, this one's included (heldError). */
async function refuseHeld(c: OperatorContext, t: SqlPort, fileId: number): Promise<void> {
  if (c.fence) await c.fence.unheld(t, fileId);
  const holder = c.fence ? await c.fence.holder(t, fileId) : await liveHolder(t, fileId);
  if (holder && (holder.finishing || !c.fence)) throw heldError(fileId, holder);
}

async function refreshFileStatus(c: OperatorContext, t: SqlPort, fileId: number): Promise<FileStatus | null> {
  const s = await fileSummaryOn(t, fileId);
  const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
  return (await t.run(c.q.refreshFileStatus, [status, JSON.stringify(s), fileId])) === 1 ? status : null;
}

/** The target's items, every one uncertain; refused, naming those that are not. */
async function uncertainTargets(c: OperatorContext, t: SqlPort, target: ResolveTarget): Promise<ItemRow[]> {
  const rows: ItemRow[] = [];
  const missing: Array<number | string> = [];
  if ('itemIds' in target) {
    for (const id of target.itemIds) {
      const row = await t.get<ItemRow>(c.q.itemById, [id]);
      if (row?.status === 'uncertain') rows.push(row);
      else missing.push(id);
    }
  } else {
    for (const seq of target.seqs) {
      const row = await t.get<ItemRow>(c.q.itemBySeq, [target.fileId, seq]);
      if (row?.status === 'uncertain') rows.push(row);
      else missing.push(`${target.fileId}#${seq}`);
    }
  }
  if (missing.length > 0) throw stateError(`not uncertain items: ${missing.join(', ')}`, { missing });
  return rows;
}

/** A person checked uncertain items: applied → ok, not-applied → error (so a re-drive can send them again). */
export function resolveUncertain(c: OperatorContext, target: ResolveTarget, options: ResolveOptions): Promise<ResolveResult> {
  return c.sql.tx(async (t) => {
    const rows = await uncertainTargets(c, t, target);
    // In id order, as a heartbeat renews them: two units of work never wait for each other's rows.
    for (const fileId of [...new Set(rows.map((row) => row.file_id))].sort((x, y) => x - y)) await refuseHeld(c, t, fileId);
    const at = c.now();
    const status: ItemStatus = options.resolution === 'applied' ? 'ok' : 'error';
    // The note replaces the "outcome unknown" message and hint in the result file; item_history keeps them.
    const messages = JSON.stringify([`${options.resolution === 'applied' ? 'applied' : 'not applied'}: ${options.note}`]);
    const fileIds = new Set<number>();
    for (const row of rows) {
      await t.run(c.q.saveHistory, [at, row.id]);
      // Resolved since it was read, through another connection (PostgreSQL reads without waiting for its unit of work).
      if ((await t.run(c.q.resolve, [status, messages, options.resolution, options.note, options.by, at, row.id])) !== 1) {
        const taken = 'itemIds' in target ? row.id : `${row.file_id}#${row.seq}`;
        throw stateError(`not uncertain items: ${taken}`, { missing: [taken] });
      }
      fileIds.add(row.file_id);
    }
    const files: Array<{ fileId: number; status: FileStatus }> = [];
    for (const fileId of fileIds) files.push({ fileId, status: (await refreshFileStatus(c, t, fileId)) ?? (await fileIn(c, t, fileId)).status });
    return { resolved: rows.length, files };
  });
}
