import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNASKABLE_REQUESTS_IN_FLIGHT } from '../../src/pipeline/requests-in-flight.js';
import { openJournal } from '../../src/journal/index.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { dropPlainAdjustments, killMidFile, restart } from './crash-support.js';
import { workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
/** The default window of adjustments (services.<name>.requests_in_flight unset), which these runs use. */
const IN_FLIGHT = UNASKABLE_REQUESTS_IN_FLIGHT;

// Small files are mapped and recorded on the main thread, big ones on a thread of their own (`mapping_threads.from_bytes: 1`:
// this one too); the debug log says which.
const ON_THREAD = /the file is mapped and recorded on its own thread/;
const env = { WISBRIDGE_LOG_LEVEL: 'debug' };
const recorders: Array<[string, { from_bytes: number } | undefined]> = [
  ['on the main thread', undefined],
  ['on a thread of its own', { from_bytes: 1 }],
];

describe.each(recorders)('kill -9 in the middle of a file, then restart; the file mapped and recorded %s', (_, mappingThreads) => {
  const onThread = mappingThreads !== undefined;
  it('adjustments: every row applied exactly once, or reported uncertain (applied at most once) with what to check', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 4, mappingThreads });
    dropPlainAdjustments(ws, 'KORR_CRASH.csv', 80, 'C');
    await setFaults(emu, { latency_ms: 300, path_prefix: '/v1/inventory' });
    const applied = async () => (await adminState(emu, ['adjustments'])).adjustments as Array<{ reference: string }>;
    const killed = await killMidFile(ws, async () => (await applied()).length >= 20, env);
    expect(ON_THREAD.test(killed.stderr)).toBe(onThread);
    const atKill = (await applied()).length;
    expect(atKill).toBeLessThan(80);
    expect(ws.files('inbox')).toEqual(['KORR_CRASH.csv']);
    const left = await openJournal(join(ws.dir, 'journal.sqlite'));
    // The kill caught at least one request on the wire: the restart must reconcile it without sending it again.
    expect(await left.backlog()).toMatchObject({ processingFiles: 1 });
    expect((await left.backlog()).sentRequests).toBeGreaterThanOrEqual(1);
    await left.close();

    const second = await restart(emu, ws, env);
    expect(ON_THREAD.test(second.stderr)).toBe(onThread);
    expect(second.stdout).toMatch(/KORR_CRASH\.csv\s+(done|failed)/);
    expect(ws.files('archive')).toEqual(['KORR_CRASH.csv']);
    const counts = new Map<string, number>();
    for (const a of await applied()) counts.set(a.reference, (counts.get(a.reference) ?? 0) + 1);
    const result = ws.result('KORR_CRASH.result.csv');
    expect(result).toHaveLength(80);
    let uncertain = 0;
    for (const row of result) {
      const reference = `C-${Number(row.line) - 1}`;
      const n = counts.get(reference) ?? 0;
      if (row.status === 'ok') expect(n, reference).toBe(1);
      else {
        expect(row.status, reference).toBe('uncertain');
        expect(n, reference).toBeLessThanOrEqual(1);
        expect(row.check).toContain(`reference ${reference}`);
        uncertain++;
      }
    }
    // Only the requests in flight at the kill (requests_in_flight at most, four rows each) can be uncertain.
    expect(uncertain).toBeLessThanOrEqual(IN_FLIGHT * 4);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    expect(await journal.backlog()).toMatchObject({ processingFiles: 0, pendingRequests: 0, sentRequests: 0 });
    await journal.close();
  });

});
