import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { ItemOutcome } from '../journal/index.js';
import { HELD_BYTES, type HeldBytes } from '../util/held-bytes.js';
import { TextBuffer } from '../util/text-buffer.js';
import { RESULT_HEADER, writeResultRows, type ResultRowWatch, type RowOutcome } from './result-file.js';
import { privateFile } from './source.js';
import { emptyRowCounts, type RowCounts } from './types.js';

/** A row rejected or skipped by the mapping, written once the documents mapped before it are. */
interface ExtraRow extends RowOutcome {
  /** How many documents the mapper gave before this row. */
  after: number;
  lines: readonly number[];
}

/** A document of a request: its lines and the key the result file shows. */
export interface SpooledDoc {
  seq: number;
  docKey: string | null;
  lines: readonly number[];
}

interface AnsweredRequest {
  docs: readonly SpooledDoc[];
  outcomes: readonly ItemOutcome[];
}

const NO_MESSAGES: readonly string[] = [];

/**
 * Result rows held in memory up to this many bytes, then written to the spool's private file: the result file of a
 * small input (1,000 rows: ~32 KB) needs no file of its own — no create, write, read back and removal on the thread
 * that sends every file's requests — and a big one's memory stays bounded.
 */
export const SPOOL_HELD_BYTES = 1 << 20;

/**
 * The result file of a first run, written while the file is sent instead of read back from the journal after it:
 * rows leave, in the mapper's order, once they and everything before them are decided (on the event loop's next
 * turn, so an answer's slot goes to the next request first), held in memory (SPOOL_HELD_BYTES) or in a private file
 * beside the snapshots. The journal stays the record — the spool writes what was stored there (the journal's result
 * file and the spool's are compared byte for byte by test/pipeline/result-spool.test.ts) and is only used when it is
 * whole: a resumed file, a file stopped half-way, or documents whose lines interleave (the mapper's order is then
 * not the file's line order) get their result file from the journal as before.
 *
 * Documents are counted, not kept: a request's documents are numbered by their place in the mapper's output and
 * written from the request's own arrays when it is answered, so a first run allocates nothing per row here that
 * would outlive a request (objects that do are promoted and cost old-generation collections: measured, see
 * docs/pipeline.md).
 */
export class ResultSpool {
  readonly counts: RowCounts = emptyRowCounts();
  /** False once finished or given up: nothing more is written. */
  private live = true;
  /** Rows written while they fit in SPOOL_HELD_BYTES; then the private file (`fd`) has them. */
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private fd: number | undefined;
  /** Whether the private file was created (remove() deletes it). */
  private spilled = false;
  /** Documents the mapper gave, documents handed to requests, documents written. */
  private mapped = 0;
  private sent = 0;
  private written = 0;
  private readonly extras: ExtraRow[] = [];
  private extraHead = 0;
  /** Answered requests not written yet, by the number of their first document. */
  private readonly answered = new Map<number, AnsweredRequest>();
  private lastLine = 0;
  /** Rows written and not yet handed to the file. */
  private readonly chunk = new TextBuffer(16 * 1024).text(RESULT_HEADER);
  private pumpSoon: NodeJS.Immediate | undefined;
  /** The stream finish() handed out: closed by remove() even when nobody read it to the end. */
  private reader: Readable | undefined;
  /** The outcome of the document being written (one object, reused). */
  private readonly current: { docKey: string | null; status: RowOutcome['status']; result: unknown; messages: readonly string[]; hint: string | null } = {
    docKey: null, status: 'ok', result: null, messages: NO_MESSAGES, hint: null,
  };

  /**
   * `path`: where the rows go once they outgrow `heldBytes` (created then: its disk metadata is paid once for a big
   * file, not for every small one; docs/performance.md, "Settings chosen by measurement").
   */
  private constructor(readonly path: string, private readonly heldLimit: number, private readonly budget: HeldBytes, private readonly watch: ResultRowWatch | undefined) {}

  /**
   * `heldBytes`: what this spool may hold; `budget`: what the process may hold in all (HELD_BYTES); `watch`: told of
   * each record written (at its first line), valid only when the spool ends whole.
   */
  static async open(dir: string, options: { heldBytes?: number; budget?: HeldBytes; watch?: ResultRowWatch } = {}): Promise<ResultSpool> {
    return new ResultSpool(await privateFile(dir, 'result'), options.heldBytes ?? SPOOL_HELD_BYTES, options.budget ?? HELD_BYTES, options.watch);
  }

  /** The mapper gave `count` more documents (in its order, between the rows skipped and rejected around them). */
  documents(count: number): void {
    this.mapped += count;
  }

  skipped(line: number, reason: string): void {
    this.extra({ after: this.mapped, lines: [line], docKey: null, status: 'skipped', result: null, messages: [reason], hint: null });
  }

  rejected(lines: readonly number[], docKey: string | null, messages: readonly string[]): void {
    this.extra({ after: this.mapped, lines, docKey, status: 'error', result: null, messages, hint: null });
  }

  /** The next `count` documents go out in a request: the number of its first document, for `answer`. */
  sending(count: number): number {
    const first = this.sent;
    this.sent += count;
    return first;
  }

  /**
   * A request's outcomes (one per document, in its order), as the journal stores them. Written on the next turn of
   * the event loop: the answer's slot goes to the next request (its commit) first.
   */
  answer(first: number, docs: readonly SpooledDoc[], outcomes: readonly ItemOutcome[]): void {
    if (!this.live) return;
    this.answered.set(first, { docs, outcomes });
    // Off the flow's stack nothing would catch an error: the spool is given up, the journal writes the result file.
    this.pumpSoon ??= setImmediate(() => this.pumpOrAbandon());
  }

  /**
   * Ends the spool once every row was decided: the result file's bytes (held in memory) or a stream of them (its
   * private file), or undefined when the spool is not whole (the journal's result file is written instead).
   */
  finish(): Buffer | Readable | undefined {
    this.pumpOrAbandon();
    if (this.written < this.mapped || this.extraHead < this.extras.length) return this.abandon();
    this.writeChunk();
    if (!this.live) return undefined;
    this.live = false;
    const fd = this.fd;
    // Held rows stay counted in the budget until remove(): they are being written to the drop.
    if (fd === undefined) return Buffer.concat(this.held.splice(0), this.heldBytes);
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      return undefined;
    }
    this.reader = createReadStream(this.path);
    return this.reader;
  }

  /** Removes the spool (idempotent). */
  async remove(): Promise<void> {
    this.abandon();
    this.reader?.destroy();
    if (this.spilled) await rm(this.path, { force: true });
  }

  private extra(row: ExtraRow): void {
    if (!this.live) return;
    this.extras.push(row);
    this.pump();
  }

  private pumpOrAbandon(): void {
    try {
      this.pump();
    } catch {
      this.abandon();
    }
  }

  /** Writes what is decided, in the mapper's order: rows rejected or skipped, and answered requests' documents. */
  private pump(): void {
    if (this.pumpSoon) clearImmediate(this.pumpSoon);
    this.pumpSoon = undefined;
    for (;;) {
      this.extrasDue();
      const request = this.answered.get(this.written);
      if (request === undefined || !this.live) break;
      this.answered.delete(this.written);
      this.writeRequest(request);
    }
    if (this.extraHead > 1024 && this.extraHead * 2 > this.extras.length) {
      this.extras.splice(0, this.extraHead);
      this.extraHead = 0;
    }
    this.writeChunk();
  }

  /** The rows rejected or skipped before the next document to write. */
  private extrasDue(): void {
    const { extras } = this;
    while (this.live && this.extraHead < extras.length && extras[this.extraHead].after <= this.written) {
      const row = extras[this.extraHead++];
      this.rows(undefined, row.lines, row);
    }
  }

  private writeRequest({ docs, outcomes }: AnsweredRequest): void {
    const current = this.current;
    for (let i = 0; i < docs.length; i++) {
      this.extrasDue();
      if (!this.live) return;
      const doc = docs[i];
      const o = outcomes[i];
      if (o?.seq !== doc.seq) {
        this.abandon();
        return;
      }
      // As completeRequest stores it: an ok item keeps only its result, another its messages and hint.
      current.docKey = doc.docKey;
      current.status = o.status;
      current.result = o.status === 'ok' ? o.result ?? null : null;
      current.messages = o.status === 'ok' ? NO_MESSAGES : o.messages ?? NO_MESSAGES;
      current.hint = o.status === 'ok' ? null : o.hint ?? null;
      this.rows(doc.seq, doc.lines, current);
      this.written++;
    }
  }

  /**
   * The rows of one record; the spool is given up when they do not follow the lines written so far. `seq`: its item's
   * in the journal; undefined for a row the mapper rejected or skipped, whose seq is its first line (file-batches.ts).
   */
  private rows(seq: number | undefined, lines: readonly number[], outcome: RowOutcome): void {
    const sorted = ascending(lines);
    if (sorted[0] <= this.lastLine) {
      this.abandon();
      return;
    }
    writeResultRows(this.chunk, sorted, outcome, this.counts);
    this.watch?.row(sorted[0], seq ?? sorted[0], outcome.status, outcome.messages);
    this.lastLine = sorted[sorted.length - 1];
  }

  private writeChunk(): void {
    if (!this.live || this.chunk.length === 0) return;
    try {
      const bytes = this.chunk.bytes();
      if (this.fd === undefined && this.heldBytes + bytes.length <= this.heldLimit && this.budget.take(bytes.length)) {
        this.held.push(Buffer.from(bytes));
        this.heldBytes += bytes.length;
      } else {
        writeAllSync(this.fd ?? this.spill(), bytes);
      }
    } catch {
      this.abandon();
      return;
    }
    this.chunk.clear();
  }

  /** The rows outgrew memory: the private file takes what is held, and every row after it. */
  private spill(): number {
    this.spilled = true;
    const fd = openSync(this.path, 'wx', 0o600);
    this.fd = fd;
    for (const rows of this.held.splice(0)) writeAllSync(fd, rows);
    this.letGo();
    return fd;
  }

  /** What is held goes back to the process's budget. */
  private letGo(): void {
    this.budget.give(this.heldBytes);
    this.heldBytes = 0;
  }

  private abandon(): undefined {
    if (this.pumpSoon) clearImmediate(this.pumpSoon);
    this.pumpSoon = undefined;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // the spool is given up either way
      }
    }
    this.fd = undefined;
    this.live = false;
    this.held.length = 0;
    this.letGo();
    this.extras.length = 0;
    this.extraHead = 0;
    this.answered.clear();
    this.chunk.clear();
    return undefined;
  }
}

function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

function ascending(lines: readonly number[]): readonly number[] {
  for (let i = 1; i < lines.length; i++) if (lines[i] <= lines[i - 1]) return [...lines].sort((a, b) => a - b);
  return lines;
}
