import { appendFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';
import { StableFileWatcher, type Drop, type ReadyFile } from '../../src/drops/index.js';
import { describeDropBehaviour } from './behaviour.js';
import { localBacking, withListHook, type Backing } from './fixtures.js';

describeDropBehaviour('local', async () => {
  const backing = localBacking();
  return { backing, drop: (extra = {}) => createDrop({ type: 'local', root: backing.root, ...extra }) };
});

describe('local drop: file events and stable-file detection', () => {
  let backing: Backing | undefined;
  let drop: Drop | undefined;
  afterEach(async () => {
    await drop?.close();
    backing?.cleanup();
  });

  it('picks up a file through file events without waiting for the next rescan', async () => {
    backing = localBacking();
    backing.mkdir('inbox');
    drop = createDrop({ type: 'local', root: backing.root });
    // A rescan every 10 minutes: only a chokidar event can wake the watcher within the test's lifetime.
    const watcher = new StableFileWatcher(drop, { settleMs: 0, pollIntervalMs: 600_000 });
    const controller = new AbortController();
    const seen: ReadyFile[] = [];
    const run = watcher.run((file) => { seen.push(file); controller.abort(); }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    backing.put('inbox/event.csv', 'hello');
    await run;
    expect(seen.map((f) => f.name)).toEqual(['event.csv']);
  });

  it('scanReady does not return a file that grew between its two looks', async () => {
    backing = localBacking();
    const path = backing.put('inbox/growing.csv', 'first part\n');
    const hooked = withListHook(createDrop({ type: 'local', root: backing.root }), (call) => {
      if (call === 1) return;
      if (call === 2) appendFileSync(path, 'second part\n'); // the upload is still going on
    });
    drop = hooked;
    const watcher = new StableFileWatcher(hooked, { settleMs: 50 });
    expect(await watcher.scanReady()).toEqual([]);
    const ready = await watcher.scanReady();
    expect(ready.map((f) => [f.name, f.size])).toEqual([['growing.csv', 23]]);
  });

  it('continuous mode emits a file once, after it stopped changing, and again when replaced', async () => {
    backing = localBacking();
    const path = backing.put('inbox/slow.csv', '');
    const seen: Array<[string, number]> = [];
    let appended = 0;
    let pollsAfterFirst = 0;
    const hooked = withListHook(createDrop({ type: 'local', root: backing.root, watchEvents: false }), () => {
      // Each poll sees a bigger file while the "upload" runs (10 polls).
      if (appended < 10) { appendFileSync(path, 'row\n'); appended += 1; return; }
      // Once emitted, the unchanged file stays for 10 more polls, then is replaced by a new version.
      if (seen.length === 1 && ++pollsAfterFirst === 10) writeFileSync(path, 'replaced content\n');
    });
    drop = hooked;
    const watcher = new StableFileWatcher(hooked, { settleMs: 30, pollIntervalMs: 20 });
    const controller = new AbortController();
    await watcher.run((file) => {
      seen.push([file.name, file.size]);
      if (seen.length === 2) controller.abort();
    }, controller.signal);
    expect(pollsAfterFirst).toBeGreaterThanOrEqual(10);
    expect(seen).toEqual([['slow.csv', 40], ['slow.csv', 17]]);
  });
});
