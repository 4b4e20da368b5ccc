import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ItemOutcome } from '../journal/index.js';
import { RESULT_HEADER } from './result-file.js';
import { ResultSpool, type SpooledDoc } from './result-spool.js';
import { HeldBytes } from '../util/held-bytes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wb-spool-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const doc = (seq: number, lines: number[] = [seq]): SpooledDoc => ({ seq, docKey: `D-${seq}`, lines });
const ok = (seq: number, result?: unknown): ItemOutcome => ({ seq, status: 'ok', result });
/** What finish() handed out: the bytes held in memory, or its private file's stream. */
const contentOf = async (rows: Buffer | Readable) => (Buffer.isBuffer(rows) ? rows.toString('utf8') : text(rows));
const lineAndStatus = (csv: string) => csv.slice(RESULT_HEADER.length).trim().split('\r\n').map((r) => r.split(',').slice(0, 3).join(','));

describe('ResultSpool: result rows in the mapper\'s order as they are decided', () => {
  it('rows rejected or skipped between the documents of one request, and requests answered out of order', async () => {
    const spool = await ResultSpool.open(dir);
    spool.documents(1); // line 2
    spool.rejected([3], 'D-3', ['line 3: "3x" is not a number']);
    spool.documents(2); // lines 4, 5
    const first = spool.sending(3);
    spool.skipped(6, 'comment');
    spool.documents(1); // line 7
    const second = spool.sending(1);
    spool.answer(second, [doc(7)], [{ seq: 7, status: 'uncertain', messages: ['no answer'], hint: 'check D-7' }]);
    spool.answer(first, [doc(2), doc(4), doc(5)], [ok(2, { move_id: 12 }), { seq: 4, status: 'error', messages: ['refused'] }, ok(5)]);
    const stream = spool.finish();
    expect(stream).toBeDefined();
    const csv = await contentOf(stream!);
    expect(csv.startsWith(RESULT_HEADER)).toBe(true);
    expect(lineAndStatus(csv)).toEqual(['2,D-2,ok', '3,D-3,error', '4,D-4,error', '5,D-5,ok', '6,,skipped', '7,D-7,uncertain']);
    expect(csv).toContain('2,D-2,ok,,,,12,,,,\r\n');
    expect(csv).toContain('refused');
    expect(csv).toContain('check D-7');
    expect(spool.counts).toEqual({ ok: 2, error: 2, skipped: 1, uncertain: 1 });
    await spool.remove();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a document over several lines gives a row per line with its outcome', async () => {
    const spool = await ResultSpool.open(dir);
    spool.documents(2);
    spool.answer(spool.sending(2), [doc(2, [2, 3, 4]), doc(5, [6, 5])], [ok(2), { seq: 5, status: 'error', messages: ['closed'] }]);
    expect(lineAndStatus(await contentOf(spool.finish()!))).toEqual(['2,D-2,ok', '3,D-2,ok', '4,D-2,ok', '5,D-5,error', '6,D-5,error']);
    await spool.remove();
  });

  it('gives up, for the journal to write the result file, when lines interleave or a row is not decided', async () => {
    const interleaved = await ResultSpool.open(dir);
    interleaved.documents(2);
    interleaved.answer(interleaved.sending(2), [doc(2, [2, 4]), doc(3, [3, 5])], [ok(2), ok(3)]);
    expect(interleaved.finish()).toBeUndefined();
    await interleaved.remove();

    const unanswered = await ResultSpool.open(dir);
    unanswered.documents(2);
    const a = unanswered.sending(1);
    unanswered.answer(unanswered.sending(1), [doc(3)], [ok(3)]);
    expect(a).toBe(0);
    expect(unanswered.finish()).toBeUndefined();
    await unanswered.remove();

    const mismatched = await ResultSpool.open(dir);
    mismatched.documents(1);
    mismatched.answer(mismatched.sending(1), [doc(2)], [ok(9)]);
    expect(mismatched.finish()).toBeUndefined();
    await mismatched.remove();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes an answered request on the event loop\'s next turn (the answer\'s slot goes to the next request first)', async () => {
    const spool = await ResultSpool.open(dir, { heldBytes: 0 });
    spool.documents(1);
    spool.answer(spool.sending(1), [doc(2)], [ok(2)]);
    expect(existsSync(spool.path)).toBe(false);
    await new Promise(setImmediate);
    expect(readFileSync(spool.path, 'utf8')).toBe(`${RESULT_HEADER}2,D-2,ok,,,,,,,,\r\n`);
    expect(statSync(spool.path).mode & 0o777).toBe(0o600);

    // given up before its turn: nothing is written after the file is closed
    const dropped = await ResultSpool.open(dir, { heldBytes: 0 });
    dropped.documents(1);
    dropped.answer(dropped.sending(1), [doc(2)], [ok(2)]);
    await dropped.remove();
    await new Promise(setImmediate);
    expect(readdirSync(dir)).toEqual([spool.path.split('/').pop()]);
    await spool.remove();

    // a row it cannot write on its turn gives the spool up (the journal writes the result file), never an uncaught error
    const broken = await ResultSpool.open(dir);
    broken.documents(1);
    broken.answer(broken.sending(1), [doc(2)], [ok(2, { extra: { big: 1n } })]);
    await new Promise(setImmediate);
    expect(broken.finish()).toBeUndefined();
    await broken.remove();
    const brokenAtTheEnd = await ResultSpool.open(dir);
    brokenAtTheEnd.documents(1);
    brokenAtTheEnd.answer(brokenAtTheEnd.sending(1), [doc(2)], [ok(2, { extra: { big: 1n } })]);
    expect(brokenAtTheEnd.finish()).toBeUndefined();
    await brokenAtTheEnd.remove();
  });

  it('holds the rows of a small result in memory, no file at all; a bigger one goes to its private file from the row that outgrew the limit, in order', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => i + 2);
    const run = async (spool: ResultSpool, n: number) => {
      spool.documents(n);
      let first = spool.sending(n / 2);
      spool.answer(first, rows(n / 2).map((l) => doc(l)), rows(n / 2).map((l) => ok(l)));
      await new Promise(setImmediate);
      first = spool.sending(n / 2);
      spool.answer(first, rows(n).slice(n / 2).map((l) => doc(l)), rows(n).slice(n / 2).map((l) => ok(l)));
      const out = spool.finish()!;
      return { held: Buffer.isBuffer(out), csv: await contentOf(out) };
    };
    const expected = (n: number) => `${RESULT_HEADER}${rows(n).map((l) => `${l},D-${l},ok,,,,,,,,\r\n`).join('')}`;

    const small = await ResultSpool.open(dir);
    expect(await run(small, 1000)).toEqual({ held: true, csv: expected(1000) });
    expect(readdirSync(dir)).toEqual([]);
    expect(small.counts.ok).toBe(1000);
    await small.remove();

    const spilled = await ResultSpool.open(dir, { heldBytes: 4096 });
    expect(await run(spilled, 1000)).toEqual({ held: false, csv: expected(1000) });
    expect(readFileSync(spilled.path, 'utf8')).toBe(expected(1000));
    expect(statSync(spilled.path).mode & 0o777).toBe(0o600);
    await spilled.remove();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('holds rows only within the process\'s budget, and gives them back when it spills or is removed', async () => {
    const budget = new HeldBytes(1024);
    const answerRows = async (spool: ResultSpool, from: number, n: number) => {
      const lines = Array.from({ length: n }, (_, i) => from + i);
      spool.documents(n);
      spool.answer(spool.sending(n), lines.map((l) => doc(l)), lines.map((l) => ok(l)));
      await new Promise(setImmediate);
    };
    const first = await ResultSpool.open(dir, { heldBytes: 1 << 20, budget });
    await answerRows(first, 2, 10);
    expect(budget.held).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([]);
    // The budget is not enough for a second spool's rows: it writes its file.
    const second = await ResultSpool.open(dir, { heldBytes: 1 << 20, budget });
    await answerRows(second, 2, 100);
    expect(readdirSync(dir)).toEqual([second.path.split('/').pop()]);
    const out = first.finish()!;
    expect(Buffer.isBuffer(out)).toBe(true);
    expect(budget.held).toBeGreaterThan(0);
    await first.remove();
    expect(budget.held).toBe(0);
    // The first spool grew past the budget: it spilled and gave back what it held.
    const third = await ResultSpool.open(dir, { heldBytes: 1 << 20, budget });
    await answerRows(third, 2, 10);
    const held = budget.held;
    expect(held).toBeGreaterThan(0);
    await answerRows(third, 12, 100);
    expect(budget.held).toBe(0);
    expect(readFileSync(third.path, 'utf8').split('\r\n').length).toBe(1 + 110 + 1);
    await Promise.all([second.remove(), third.remove()]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
