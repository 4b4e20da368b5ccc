import { resultFileName } from '../../util/file-name.js';
import { unpackDocs } from './blocks.js';
import { blockIndex, INDEX_PARTS } from './search-index.js';

/**
 * The parts of a migration that SQL alone cannot do, written once for both engines: a step yields its statements
 * (`?` placeholders) and receives each one's rows as arrays; SQLite runs it synchronously inside its migration's
 * transaction, PostgreSQL awaits each statement on the migration's client (runStepSqlite, runStepPostgres).
 */
export interface StepQuery {
  sql: string;
  params: readonly unknown[];
}
export type MigrationStep = () => Generator<StepQuery, void, unknown[][]>;

/** Blocks re-indexed per page read. */
const BLOCKS_A_PAGE = 200;

const UNINDEXED_BLOCKS = `SELECT b.request_id, b.file_id, b.docs, b.bodies FROM item_blocks b
  WHERE b.request_id > ? AND NOT EXISTS (
    SELECT 1 FROM block_tokens t WHERE t.part IN (${Array.from({ length: INDEX_PARTS }, (_, p) => p).join(', ')}) AND t.request_id = b.request_id)
  ORDER BY b.request_id LIMIT ?`;
const INSERT_INDEX = 'INSERT INTO block_index (request_id, part, file_id, entries) VALUES (?, ?, ?, ?)';
const INSERT_TOKENS = 'INSERT INTO block_tokens (part, request_id, tokens) VALUES (?, ?, ?)';

/**
 * Gives every item block without a term index (one recorded with a Bloom filter in block_terms, or before any) its
 * index, computed from its stored documents and bodies as packBatch computes a new block's, so the search reads one
 * format only.
 */
function* indexOldBlocks(): Generator<StepQuery, void, unknown[][]> {
  for (let after = 0; ;) {
    const blocks = yield { sql: UNINDEXED_BLOCKS, params: [after, BLOCKS_A_PAGE] };
    for (const [requestId, fileId, docs, bodies] of blocks) {
      const request = Number(requestId);
      const entries = unpackDocs({ request_id: request, docs: docs as string });
      for (const part of blockIndex(entries, JSON.parse(bodies as string) as unknown[])) {
        yield { sql: INSERT_INDEX, params: [request, part.part, Number(fileId), part.entries] };
        yield { sql: INSERT_TOKENS, params: [part.part, request, part.tokens] };
      }
      after = request;
    }
    if (blocks.length < BLOCKS_A_PAGE) return;
  }
}

/**
 * Files finished before result names were recorded (their disposition recorded as 'unknown') get the name their
 * result file was written under then: the plain `NAME.result.csv`.
 */
function* nameOldResults(): Generator<StepQuery, void, unknown[][]> {
  const files = yield { sql: "SELECT id, name FROM files WHERE result_name IS NULL AND disposed_to = 'unknown'", params: [] };
  for (const [id, name] of files) yield { sql: 'UPDATE files SET result_name = ? WHERE id = ?', params: [resultFileName(name as string), Number(id)] };
}

/** Old blocks re-indexed and old result names filled: what the legacy readers did at every read, done once. */
export function* upgradeLegacyRows(): Generator<StepQuery, void, unknown[][]> {
  yield* indexOldBlocks();
  yield* nameOldResults();
}
