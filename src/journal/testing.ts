import type { ControlNumberKind } from './outbound/control-numbers.js';
import { packBatch, type PackedBatch } from './core/block-pack.js';
import { createBlocks } from './core/blocks.js';
import { stateError } from './core/rows.js';
import type { SqlPort } from './core/sql.js';
import type { ExportRecord, HistoryEntry, ItemWithBody, NewItem } from './core/types.js';
import { itemHistory } from './admin/operator.js';
import { portOf } from './compose.js';
import { listFiles, type FileFilter, type FileListEntry } from './console/console-queries.js';
import { InboundReads } from './inbound/inbound-reads.js';
import { recordsOfExport } from './outbound/outbound.js';
import type { ClaimsAndRequests } from './contract.js';

/*
 * The journal's test hooks: calls the tests make and no part of the bridge does, kept off the contract (contract.ts)
 * so that nothing in production can come to depend on them. Only tests (and bench/) import this module;
 * test/architecture/layers.test.ts refuses it anywhere else under src/.
 */

/** The request's bodies as one JSON array text, from the items' own bodies (a JSON text each, or a value). */
function bodiesJson(fileId: number, items: readonly Pick<NewItem, 'seq' | 'body'>[]): string {
  const parts: string[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const body = items[i].body;
    if (body === undefined || body === null) throw stateError(`item ${items[i].seq} of file ${fileId} has no body`);
    parts[i] = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return `[${parts.join(',')}]`;
}

/** The items' bodies as values, for the search terms of their block (JSON text is parsed; unreadable: no terms). */
function bodyValues(items: readonly NewItem[], bodiesText: string | undefined): unknown[] {
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  if (bodiesText !== undefined) {
    const all = parse(bodiesText);
    return Array.isArray(all) ? all : [];
  }
  return items.map((item) => (typeof item.body === 'string' ? parse(item.body) : item.body));
}

/** What tests ask of a journal beyond its contract. */
export interface JournalTestHooks {
  /**
   * Records one request of the items (or of items packed ahead with packBatch, then with their bodies' JSON text in
   * item order) as one item block, through the contract's recordBatches; resolves its id. `sent: true` marks it sent
   * in the same commit.
   */
  recordBatch(fileId: number, endpoint: string, items: readonly NewItem[] | PackedBatch, options?: { sent?: boolean; bodies?: string }): Promise<number>;
  /** Items with seqs in [fromSeq, toSeq], in seq order, held in memory; an item copied from a block is read from `items`. */
  itemsInRange(fileId: number, fromSeq: number, toSeq: number): Promise<ItemWithBody[]>;
  /** What the service returned for an ok item. */
  resultOf(requestId: number | null, seq: number): Promise<unknown>;
  /** A request's stored results as [seq, result] pairs. */
  resultList(requestId: number): Promise<ReadonlyArray<[number, unknown]>>;
  /** An item's earlier outcomes, oldest first. */
  itemHistory(itemId: number): Promise<HistoryEntry[]>;
  /** An export's records in record order. */
  exportRecords(exportId: number): Promise<ExportRecord[]>;
  /** The console's files only (its file list merges them with file events: ConsolePages.listFileLines). */
  consoleFiles(filter: FileFilter): Promise<FileListEntry[]>;
  /** Sets the last control number handed out to a partner and kind (to reach the wrap without a billion calls). */
  setControlNumber(partner: string, kind: ControlNumberKind, value: number): Promise<void>;
}

/**
 * The test hooks of a journal: one openJournal gave, a unit of work's `tx`, or (recordBatch only) anything with the
 * contract's recordBatches, such as a connection served from another thread. Reads go through the journal's port.
 */
export function testHooks(journal: object): JournalTestHooks {
  let reads: InboundReads | undefined;
  const port = (): SqlPort => portOf(journal);
  const inbound = (): InboundReads => (reads ??= new InboundReads(port(), createBlocks(port())));
  return {
    recordBatch: async (fileId, endpoint, items, options = {}) => {
      const packed = Array.isArray(items) ? packBatch(endpoint, items as readonly NewItem[], bodyValues(items as readonly NewItem[], options.bodies)) : (items as PackedBatch);
      const bodies = options.bodies ?? (Array.isArray(items) ? bodiesJson(fileId, items as readonly NewItem[]) : undefined);
      if (bodies === undefined) throw stateError(`request of file ${fileId}: packed items need their bodies' JSON text`);
      const record = (journal as Pick<ClaimsAndRequests, 'recordBatches'>).recordBatches;
      return (await record.call(journal, fileId, [{ endpoint, packed, bodies }], { sent: options.sent === true }))[0];
    },
    itemsInRange: (fileId, fromSeq, toSeq) => inbound().itemsInRange(fileId, fromSeq, toSeq),
    resultOf: (requestId, seq) => inbound().resultOf(requestId, seq),
    resultList: (requestId) => inbound().resultList(requestId),
    itemHistory: (itemId) => itemHistory(port(), itemId),
    exportRecords: (exportId) => recordsOfExport(port(), exportId),
    consoleFiles: (filter) => listFiles(port(), filter),
    setControlNumber: async (partner, kind, value) => {
      await port().run(`INSERT INTO control_numbers (partner, kind, value) VALUES (?, ?, ?)
        ON CONFLICT (partner, kind) DO UPDATE SET value = excluded.value`, [partner, kind, value]);
    },
  };
}
