import { upgradeLegacyRows, type MigrationStep } from '../core/upgrade.js';

/**
 * Forward-only migrations of the journal schema. Index i holds the SQL that brings a journal from
 * version i to version i + 1. Never edit a released migration: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    drop_name TEXT NOT NULL,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    size INTEGER NOT NULL,
    mapping TEXT NOT NULL,
    generation INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('processing', 'done', 'failed', 'rejected')),
    reason TEXT,
    summary TEXT,
    redrive INTEGER NOT NULL DEFAULT 0,
    claimed_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX files_checksum ON files (checksum, id);
  CREATE INDEX files_claimed ON files (claimed_at);

  -- One request item (shipment, adjustment, count...) or one row the mapping rejected.
  -- Lines: first_line..last_line when contiguous, otherwise the JSON list in lines.
  CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files (id),
    seq INTEGER NOT NULL,
    endpoint TEXT,
    doc_key TEXT,
    first_line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    lines TEXT,
    body TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'ok', 'error', 'uncertain', 'skipped')),
    rejected INTEGER NOT NULL DEFAULT 0,
    request_id INTEGER,
    attempt INTEGER NOT NULL DEFAULT 0,
    messages TEXT,
    hint TEXT,
    resolution TEXT CHECK (resolution IN ('applied', 'not-applied')),
    resolution_note TEXT,
    resolved_by TEXT,
    resolved_at TEXT
  );
  CREATE UNIQUE INDEX items_file_seq ON items (file_id, seq);
  -- The result file is written in input line order.
  CREATE INDEX items_file_line ON items (file_id, first_line, seq);
  -- Partial: only rows needing attention are indexed, so the hot path pays nothing for it.
  CREATE INDEX items_attention ON items (status, file_id, seq) WHERE status IN ('error', 'uncertain');

  -- seqs: the request's items as a JSON list of [from, to] ranges. results: what the service
  -- returned for its ok items, as a JSON list of [seq, fields]: one write per request instead of one per item.
  CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files (id),
    endpoint TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    seqs TEXT NOT NULL,
    item_count INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'done', 'failed', 'uncertain', 'abandoned')),
    results TEXT,
    created_at TEXT NOT NULL,
    sent_at TEXT,
    completed_at TEXT
  );
  CREATE INDEX requests_file ON requests (file_id);
  CREATE INDEX requests_open ON requests (status) WHERE status IN ('pending', 'sent');

  -- Earlier outcomes of an item, kept when it is re-driven or resolved.
  CREATE TABLE item_history (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items (id),
    request_id INTEGER,
    attempt INTEGER NOT NULL,
    status TEXT NOT NULL,
    messages TEXT,
    hint TEXT,
    recorded_at TEXT NOT NULL
  );
  CREATE INDEX item_history_item ON item_history (item_id);

  CREATE TABLE exports (
    id INTEGER PRIMARY KEY,
    work_type TEXT NOT NULL,
    file_name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('work', 'cancellation')),
    policy TEXT NOT NULL CHECK (policy IN ('on-export', 'on-confirmation', 'never')),
    status TEXT NOT NULL CHECK (status IN ('recorded', 'written', 'completed', 'abandoned')),
    record_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    written_at TEXT,
    completed_at TEXT
  );
  CREATE INDEX exports_type ON exports (work_type, status);

  CREATE TABLE export_records (
    export_id INTEGER NOT NULL REFERENCES exports (id),
    record_id INTEGER NOT NULL,
    work_type TEXT NOT NULL,
    kind TEXT NOT NULL,
    number TEXT,
    updated_at TEXT,
    ack_status TEXT NOT NULL CHECK (ack_status IN
      ('unwritten', 'pending', 'awaiting-confirmation', 'acknowledged', 'error', 'not-required', 'abandoned')),
    acknowledged_at TEXT,
    messages TEXT,
    PRIMARY KEY (export_id, record_id)
  ) WITHOUT ROWID;
  CREATE INDEX export_records_record ON export_records (work_type, kind, record_id);
  CREATE INDEX export_records_open ON export_records (work_type, ack_status)
    WHERE ack_status IN ('unwritten', 'pending', 'awaiting-confirmation');

  CREATE TABLE cursors (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE file_sequences (work_type TEXT PRIMARY KEY, value INTEGER NOT NULL);
  `,
  `
  -- The items of a request recorded by the pipeline, packed into one row: one write per request instead of
  -- one per item (a 1,000,000-row file is 1,000 rows here, not 1,000,000 in items). docs: JSON list of
  -- [seq, doc_key, first_line, last_line, lines | null] in request order; bodies: the JSON list of item bodies,
  -- same order. An item of a block that did not come back ok is copied into items when its request completes
  -- (exceptions counts them): items stays the one place for errors, uncertain items, history and re-drives.
  CREATE TABLE item_blocks (
    request_id INTEGER PRIMARY KEY REFERENCES requests (id),
    file_id INTEGER NOT NULL REFERENCES files (id),
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    first_line INTEGER NOT NULL,
    docs TEXT NOT NULL,
    bodies TEXT NOT NULL,
    exceptions INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX item_blocks_line ON item_blocks (file_id, first_line, request_id);
  CREATE INDEX item_blocks_seq ON item_blocks (file_id, last_seq);
  `,
  `
  -- Whether an export's file is in place is the export row's status alone: records are recorded with the status
  -- they take once it is written (its policy's), and read as 'unwritten' while it is 'recorded'. Records this
  -- version's predecessor left 'unwritten' take their policy's status; their export is still 'recorded'.
  UPDATE export_records SET ack_status = (
    SELECT CASE e.policy WHEN 'on-export' THEN 'pending' WHEN 'on-confirmation' THEN 'awaiting-confirmation' ELSE 'not-required' END
    FROM exports e WHERE e.id = export_records.export_id)
  WHERE ack_status = 'unwritten';
  `,
  `
  -- Where a file's result went and where the file itself went, recorded once each is done. A result file is only
  -- ever replaced by one of the same file (never by a later file's, e.g. a re-drop's); a file still in its inbox
  -- whose disposition is not recorded was stopped by a crash before it left (it is finished, not a re-drop).
  -- Files finished before this version are taken as disposed: their disposition is not known.
  ALTER TABLE files ADD COLUMN result_name TEXT;
  ALTER TABLE files ADD COLUMN disposed_to TEXT;
  UPDATE files SET disposed_to = 'unknown' WHERE status != 'processing';
  -- Files met but not claimed: re-drops of content processed before (duplicate) and files rejected before a claim
  -- (no mapping matches, empty, not UTF-8). The recent list shows them beside the files table.
  CREATE TABLE file_events (
    id INTEGER PRIMARY KEY,
    drop_name TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('duplicate', 'rejected')),
    original_file_id INTEGER REFERENCES files (id),
    reason TEXT,
    at TEXT NOT NULL
  );
  CREATE INDEX file_events_at ON file_events (at);
  -- Retention: a pruned file keeps its row (checksum, summary) but loses its items, blocks and requests.
  -- pruned_requests: how many requests it had, so a rejected file that reached the service stays a duplicate.
  ALTER TABLE files ADD COLUMN pruned_at TEXT;
  ALTER TABLE files ADD COLUMN pruned_requests INTEGER;
  `,
  `
  -- The operations console (docs/console.md): what an operator did, by whom and when; and the indexes its
  -- server-side filters and keyset pages use (files newest first by status, drop or name; blocks by first seq).
  -- Written idempotent (IF NOT EXISTS).
  CREATE TABLE IF NOT EXISTS operator_actions (
    id INTEGER PRIMARY KEY,
    action TEXT NOT NULL,
    file_id INTEGER,
    target TEXT,
    actor TEXT NOT NULL,
    via TEXT NOT NULL,
    detail TEXT,
    outcome TEXT NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS operator_actions_file ON operator_actions (file_id, id);
  CREATE INDEX IF NOT EXISTS files_status_id ON files (status, id);
  CREATE INDEX IF NOT EXISTS files_drop_id ON files (drop_name, id);
  CREATE INDEX IF NOT EXISTS item_blocks_first_seq ON item_blocks (file_id, first_seq, last_seq);
  CREATE INDEX IF NOT EXISTS exports_status_id ON exports (status, id);
  `,
  `
  -- A duplicate's result file and where the re-dropped file went, recorded like a file's (version 4): a duplicate
  -- whose move a crash interrupted is finished under the same names on restart instead of getting a second result
  -- file and a second archive copy. Events before this version are taken as disposed.
  ALTER TABLE file_events ADD COLUMN result_name TEXT;
  ALTER TABLE file_events ADD COLUMN disposed_to TEXT;
  UPDATE file_events SET disposed_to = 'unknown';
  CREATE INDEX IF NOT EXISTS file_events_name ON file_events (name, id);
  `,
  `
  -- Several instances on one journal (PostgreSQL; a SQLite journal serves one, and refuses a second): who runs, the
  -- lease each file is worked under and the scheduled ticks run once across them (src/journal/leases/leases.ts). A lease is
  -- an owner (instance id), a fencing token that grows with every new owner (every write for the file checks it) and
  -- an expiry by the database clock, renewed by the owner's heartbeat.
  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    stopped_at TEXT
  );
  ALTER TABLE files ADD COLUMN lease_owner TEXT;
  ALTER TABLE files ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE files ADD COLUMN lease_until TEXT;
  CREATE TABLE job_ticks (
    job TEXT NOT NULL,
    tick TEXT NOT NULL,
    owner TEXT NOT NULL,
    token INTEGER NOT NULL,
    lease_until TEXT NOT NULL,
    done_at TEXT,
    PRIMARY KEY (job, tick)
  );
  -- The ticks under way, which heartbeats renew: few, however long the table.
  CREATE INDEX job_ticks_open ON job_ticks (owner) WHERE done_at IS NULL;
  `,
  `
  -- A re-drop is handled by one instance: its duplicate event is claimed by its insert (one unfinished event per
  -- drop, name and original file; the first insert wins) and leased like a file (owner, token, expiry), so another
  -- instance leaves the re-drop alone while its handler lives and finishes it once that lease ran out. Unfinished
  -- events a race left twice keep the newest (the one a restart finishes).
  ALTER TABLE file_events ADD COLUMN lease_owner TEXT;
  ALTER TABLE file_events ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE file_events ADD COLUMN lease_until TEXT;
  UPDATE file_events SET disposed_to = 'unknown' WHERE kind = 'duplicate' AND disposed_to IS NULL AND id NOT IN (
    SELECT max(id) FROM file_events WHERE kind = 'duplicate' AND disposed_to IS NULL GROUP BY drop_name, name, original_file_id);
  CREATE UNIQUE INDEX file_events_unfinished ON file_events (drop_name, name, original_file_id) WHERE kind = 'duplicate' AND disposed_to IS NULL;
  `,
  `
  -- The operations console: a file's processing time apart
  -- from later actions (finished_at moves with every re-drive; processed_at is the first finish, kept), and one
  -- alert inbox kept across restarts: one open alert per kind and subject (what it concerns), its count and
  -- first/last seen, until an operator acknowledges it. Files finished before this version and never re-driven
  -- take their finish; re-driven ones stay unknown.
  ALTER TABLE files ADD COLUMN processed_at TEXT;
  UPDATE files SET processed_at = finished_at WHERE redrive = 0;
  CREATE TABLE alerts (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    job TEXT,
    file_id INTEGER,
    message TEXT NOT NULL,
    times INTEGER NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    acknowledged_by TEXT,
    acknowledged_at TEXT
  );
  CREATE UNIQUE INDEX alerts_open ON alerts (kind, subject) WHERE acknowledged_at IS NULL;
  CREATE INDEX alerts_last_seen ON alerts (last_seen, id);
  `,
  `
  -- The console's search (docs/console.md): one row per item block
  -- part (1 of 16, by the term's hash) with a Bloom filter of its items' search terms (document key and the short string values of each body: SKU,
  -- order or ASN number, reference; lower-cased), written with the block. A search reads these small rows, not
  -- the blocks, and opens only blocks whose filter may hold the term. Rows outside blocks (rejected by the mapping,
  -- recorded one by one) are found by their document key. Blocks recorded before this version have no filter and
  -- are not searched.
  CREATE TABLE block_terms (
    request_id INTEGER NOT NULL,
    part INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    terms TEXT NOT NULL,
    PRIMARY KEY (request_id, part)
  );
  CREATE INDEX block_terms_part ON block_terms (part, request_id);
  CREATE INDEX items_doc_key ON items (lower(doc_key)) WHERE doc_key IS NOT NULL;
  CREATE INDEX items_resolved ON items (resolved_at) WHERE resolved_at IS NOT NULL;
  `,
  `
  -- The console's search reads a term index per item block instead of Bloom filters (docs/console.md,
  -- search-index.ts). block_tokens: per part (1 of 16, by the term's hash) a short token of each of the block's terms,
  -- kept in part order so a search reads one part of every block; block_index: per part the fingerprints of the
  -- terms with the items that carried them, read by block for the blocks a token let through. New blocks get these
  -- only; block_terms keeps the filters of the blocks recorded before, which are still searched through them.
  CREATE TABLE block_tokens (
    part INTEGER NOT NULL,
    request_id INTEGER NOT NULL,
    tokens TEXT NOT NULL,
    PRIMARY KEY (part, request_id)
  ) WITHOUT ROWID;
  CREATE TABLE block_index (
    request_id INTEGER NOT NULL,
    part INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    entries TEXT NOT NULL,
    PRIMARY KEY (request_id, part)
  );
  `,
  `
  -- One format of each: every item block has a term index (blocks recorded with a Bloom filter or before any got
  -- theirs in this migration's step, upgradeLegacyRows), and every file finished before result names were recorded
  -- has the name its result file was written under. The Bloom filters are no longer read.
  DROP TABLE block_terms;
  `,
  `
  -- (IF NOT EXISTS: a journal set back to an older version in tests runs this again.)
  -- X12 control numbers (ISA13, GS06, ST02) handed out per trading partner and kind (interchange, group, set):
  -- the last one allocated (outbound/control-numbers.ts).
  CREATE TABLE IF NOT EXISTS control_numbers (
    partner TEXT NOT NULL,
    kind TEXT NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (partner, kind)
  );
  `,
  `
  -- The X12 control numbers an export's interchange was written with (outbound/control-numbers.ts): its ISA13,
  -- its group's GS06 and its sets' ST02 (first_set, first_set + 1, ...); found by GS06 when a 997 names it.
  CREATE TABLE IF NOT EXISTS export_controls (
    export_id INTEGER PRIMARY KEY,
    partner TEXT NOT NULL,
    interchange INTEGER NOT NULL,
    group_control INTEGER NOT NULL,
    first_set INTEGER NOT NULL,
    sets INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS export_controls_group ON export_controls (partner, group_control);
  `,
  `
  -- An export owned like a file (src/journal/outbound/export-lease.ts): the instance that recorded it (NULL: a process
  -- without an instance) and a fencing token that grows with every owner; staged_name is the temporary name its work
  -- list waits under in the outbox once the owner's last fenced step before the rename committed. The columns are
  -- added by its step (MIGRATION_STEPS), only where missing: SQLite has no ADD COLUMN IF NOT EXISTS, and a journal set
  -- back to an older version in tests runs this again.
  `,
  `
  -- The X12 acknowledgement of an inbound file: its name and the control numbers of each reply (JSON), recorded before
  -- it is written, so a run after a crash writes the same acknowledgement again (pipeline/x12-ack.ts). The column is
  -- added by this migration's step, when missing (as for the export lease above).
  `,  `
  -- Every instance that took a file's lease (src/journal/leases/file-owners.ts): its first claim, and each takeover
  -- with the instance it took the file from, why (its owner lost, stopped, gave it up; an operator's re-drive) and the
  -- fencing token it took. Only appended to; a file's rows are read in order of id.
  CREATE TABLE IF NOT EXISTS file_owners (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    instance TEXT NOT NULL,
    from_instance TEXT,
    token INTEGER NOT NULL,
    reason TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS file_owners_file ON file_owners (file_id, id);
  `,  `
  -- The 997/999 a partner sent for an X12 work list we wrote (outbound/received-acks.ts), one per export (the latest
  -- received): its verdict (state accepted, accepted-with-errors or rejected; code AK901), the file it came in, and
  -- per set its AK5 code and AK3/AK4 errors (detail, JSON).
  CREATE TABLE IF NOT EXISTS export_acks (
    export_id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    code TEXT NOT NULL,
    sets_rejected INTEGER NOT NULL,
    detail TEXT NOT NULL,
    received_at TEXT NOT NULL
  );
  `,
  `
  -- An X12 file's envelopes as read (pipeline/x12-structure.ts): one entry per interchange, group and listed set in
  -- file order (ord; 0 the file's totals), its detail as JSON, recorded at the claim and again once the rows are
  -- decided; the console's file page reads it a page at a time.
  CREATE TABLE IF NOT EXISTS x12_envelopes (
    file_id INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    level TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (file_id, ord)
  );
  `,
  `
  -- The X12 interchanges received, by sender (its partner profile's name, else QUALIFIER/ID of ISA05/06) and ISA13,
  -- with the file that brought each first: a later file bringing one again is refused (TA1 code 025), whatever its
  -- bytes (pipeline/x12-repeats.ts).
  CREATE TABLE IF NOT EXISTS received_interchanges (
    sender TEXT NOT NULL,
    control TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (sender, control)
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Adds the columns a table lacks: SQLite's ADD COLUMN has no IF NOT EXISTS. */
function addMissingColumns(table: string, columns: ReadonlyArray<readonly [name: string, declaration: string]>): MigrationStep {
  return function* () {
    const present = new Set((yield { sql: `SELECT name FROM pragma_table_info('${table}')`, params: [] }).map((row) => row[0]));
    for (const [name, declaration] of columns) {
      if (!present.has(name)) yield { sql: `ALTER TABLE ${table} ADD COLUMN ${name} ${declaration}`, params: [] };
    }
  };
}

const EXPORT_LEASE_COLUMNS = addMissingColumns('exports', [['lease_owner', 'TEXT'], ['lease_token', 'INTEGER NOT NULL DEFAULT 0'], ['staged_name', 'TEXT']]);

const X12_ACK_COLUMN = addMissingColumns('files', [['x12_ack', 'TEXT']]);

/** What runs after the SQL of migration i (its index), in the same transaction: the steps SQL alone cannot do. */
export const MIGRATION_STEPS: ReadonlyMap<number, MigrationStep> = new Map([[11, upgradeLegacyRows], [14, EXPORT_LEASE_COLUMNS], [15, X12_ACK_COLUMN]]);
