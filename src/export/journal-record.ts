import type { ExportRecordInput } from '../journal/index.js';

/** A record of a list endpoint, as the export reads it. */
export interface ListedRecord {
  id: number;
  number?: string;
  updated_at?: unknown;
  [key: string]: unknown;
}

/** What the journal keeps of an exported record (products have a code, not a number). */
export const journalRecord = (r: ListedRecord): ExportRecordInput => ({
  id: r.id,
  number: typeof r.number === 'string' ? r.number : typeof r.code === 'string' ? r.code : String(r.id),
  updatedAt: typeof r.updated_at === 'string' ? r.updated_at : null,
});
