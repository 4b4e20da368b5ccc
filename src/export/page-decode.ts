import { pageOfBody, type DecodedPage } from '../client/list.js';
import type { ListEndpointId } from '../client/types.js';
import type { ExportRenderer } from '../mapping/export.js';
import { journalRecord, type ListedRecord } from './journal-record.js';

/** What an export keeps of a listed page: per record its journal fields and its rows as CSV text. */
export interface ExportPage {
  numbers: string[];
  updatedAts: (string | null)[];
  /** The record's rows; '' for a record the mapping could not render (its message is in `failed`). */
  texts: string[];
  /** Records the mapping could not render, by index: an error only if the record is to be exported. */
  failed: [number, string][];
}

/**
 * A list page's body, checked against the contract (CONTRACT_VIOLATION), rendered through the export mapping record
 * by record. Runs on the page thread, or on the main thread when that cannot start.
 */
export function decodeExportPage(endpoint: ListEndpointId, body: ArrayBuffer, renderer: ExportRenderer): DecodedPage<ExportPage> {
  const { records, hasMore } = pageOfBody(endpoint, body);
  const n = records.length;
  const ids = new Array<number>(n);
  const data: ExportPage = { numbers: new Array<string>(n), updatedAts: new Array<string | null>(n), texts: new Array<string>(n), failed: [] };
  for (let i = 0; i < n; i++) {
    const record = records[i] as ListedRecord;
    const journal = journalRecord(record);
    ids[i] = journal.id;
    data.numbers[i] = journal.number;
    data.updatedAts[i] = journal.updatedAt ?? null;
    try {
      data.texts[i] = renderer.render(record);
    } catch (error) {
      data.texts[i] = '';
      data.failed.push([i, error instanceof Error ? error.message : String(error)]);
    }
  }
  return { hasMore, ids, data };
}
