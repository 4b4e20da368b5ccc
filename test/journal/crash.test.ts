import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJournal, SCHEMA_VERSION } from '../../src/journal/index.js';
import { rawDatabase, tempDir } from '../../src/journal/test-support.js';
import { testHooks } from '../../src/journal/testing.js';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

function startChild(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
  const waitFor = (text: string) => new Promise<void>((resolve, reject) => {
    const check = () => (out.includes(text) ? resolve() : undefined);
    child.stdout.on('data', check);
    child.on('close', () => reject(new Error(`child exited before "${text}": ${out}${err}`)));
    check();
  });
  return { child, exited, waitFor };
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('crash safety', () => {
  it('a journal killed with SIGKILL in the middle of a transaction reopens consistent, without the torn transaction', async () => {
    const { child, exited, waitFor } = startChild(['crash', tmp.path]);
    await waitFor('in-transaction');
    child.kill('SIGKILL');
    const { signal } = await exited;
    expect(signal).toBe('SIGKILL');

    const journal = await openJournal(tmp.path);
    try {
      expect(rawDatabase(journal).pragma('integrity_check', { simple: true })).toBe('ok');
      expect(rawDatabase(journal).pragma('foreign_key_check')).toEqual([]);
      const [file] = await journal.listFiles({ limit: 5 });
      expect(file.status).toBe('processing');
      // Everything committed before the transaction survived; nothing of the transaction did.
      const summary = await journal.fileSummary(file.fileId);
      expect(summary).toMatchObject({ total: 500, ok: 300, sent: 100, pending: 100 });
      expect(await journal.alreadyExported('customer-shipments', [1])).toEqual(new Set());
      expect(await journal.getCursor('products')).toBeNull();

      // The restarted pipeline: same checksum → resume; the unsent request is abandoned, the sent one is in doubt.
      const claim = await journal.claimFile({ drop: 'd', name: 'child.csv', checksum: 'sum-child.csv', size: 1, mapping: 'adjustments' });
      expect(claim).toMatchObject({ status: 'resume', fileId: file.fileId });
      const state = await journal.resumeState(file.fileId);
      // The abandoned request's items are dropped: the resumed pipeline maps those rows again and records them anew.
      expect(state.counts).toEqual({ finished: 300, sent: 100, unsent: 0 });
      expect(await journal.fileSummary(file.fileId)).toMatchObject({ total: 400, ok: 300, sent: 100, pending: 0 });
      expect([0, 299, 300, 399, 400, 499, 1000].map((s) => state.classify(s)))
        .toEqual(['finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'unsent']);
      expect(state.sentRequests).toHaveLength(1);
      expect(state.sentRequests[0].seqs).toHaveLength(100);
      expect(await journal.backlog()).toMatchObject({ sentItems: 100, pendingItems: 0 });
    } finally {
      await journal.close();
    }
  });
});

describe('concurrent connections', () => {
  it('two processes writing immediate transactions at once never see SQLITE_BUSY', async () => {
    const journal = await openJournal(tmp.path);
    const other = startChild(['writer', tmp.path, 'child.csv', 'peer']);
    // Wait for the child to be in its write loop (it goes on until this process is done).
    await other.waitFor('writing');
    const mine: number[] = [];
    try {
      const { fileId } = await journal.claimFile({ drop: 'd', name: 'parent.csv', checksum: 'sum-parent', size: 1, mapping: 'm' });
      for (let b = 0; b < 40; b++) {
        const items = Array.from({ length: 50 }, (_, i) => ({
          seq: b * 50 + i, endpoint: 'e', lines: [b * 50 + i + 2], body: '{}',
        }));
        const id = await testHooks(journal).recordBatch(fileId, 'e', items);
        await journal.markSent(id);
        await journal.completeRequest(id, items.map((i) => ({ seq: i.seq, status: 'ok' as const })));
        mine.push(await journal.nextFileSequence('shared'));
      }
      await journal.setCursor('peer-done', 'yes');
      const result = await other.exited;
      expect(result.err).not.toMatch(/SQLITE_BUSY|locked/);
      expect(result.code).toBe(0);
      const theirs = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { fileId: number; sequences: number[]; status: string };
      expect(theirs.status).toBe('done');
      expect(await journal.fileSummary(theirs.fileId)).toMatchObject({ total: theirs.sequences.length * 50, ok: theirs.sequences.length * 50 });
      // Every sequence number handed out exactly once across both connections.
      const all = [...mine, ...theirs.sequences].sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
      expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2000, ok: 2000 });
      // The two writers really overlapped: the child committed before and after this process's
      // commits (and between them when it got the lock), waiting on the lock instead of failing.
      const owners = rawDatabase(journal).prepare('SELECT file_id FROM requests ORDER BY id').pluck().all() as number[];
      const switches = owners.filter((owner, i) => i > 0 && owner !== owners[i - 1]).length;
      expect(switches).toBeGreaterThanOrEqual(2);
    } finally {
      await journal.close();
    }
  });

  it('two connections opening a fresh journal at once migrate it once', async () => {
    const children = [startChild(['writer', tmp.path, 'a.csv', '2']), startChild(['writer', tmp.path, 'b.csv', '2'])];
    const results = await Promise.all(children.map((c) => c.exited));
    expect(results.map((r) => [r.code, r.err])).toEqual([[0, ''], [0, '']]);
    const raw = new Database(tmp.path, { readonly: true });
    expect(raw.prepare('SELECT count(*) FROM schema_version').pluck().get()).toBe(SCHEMA_VERSION);
    raw.close();
  });
});
