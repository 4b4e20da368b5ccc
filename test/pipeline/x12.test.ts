import { describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { runInboundOnce, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

describe('inbound pipeline: X12 files read through their mappings', () => {
  it('applies the accepted sets, reports every segment of a set in the result file, and nothing of a refused set', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    for (const s of ['NWL_945_20261120.edi', 'NWL_947_20261120.edi']) ws.drop(s);
    const report = await runInboundOnce(ws);
    expect(report.files).toHaveLength(2);
    expect(ws.files('archive')).toEqual(['NWL_945_20261120.edi', 'NWL_947_20261120.edi']);
    const state = await adminState(emu);

    const ship = ws.result('NWL_945_20261120.result.csv');
    const by = (status: string) => ship.filter((r) => r.status === status).map((r) => Number(r.line));
    // Segments 3–30 are the sets of SO-1128 and SO-1127, 31–39 SO-1130 (a bad quantity), 40–47 the set SE01 refuses.
    expect(by('ok')).toEqual(Array.from({ length: 28 }, (_, i) => i + 3));
    expect(by('error')).toEqual(Array.from({ length: 17 }, (_, i) => i + 31));
    expect(ship.find((r) => r.line === '36')?.message).toBe('NWL_945_20261120.edi, interchange 000004711, set 0003, segment 7 (W12), element 03: "3,250" is not a number');
    expect(ship.find((r) => r.line === '40')?.message).toContain('set 0004: SE01 says 9 segments, the set has 8; refused (set-segment-count, code 4)');
    expect(state.customer_shipments.find((s: { number: string }) => s.number === 'SO-1128').list_status).toBe('done');
    expect(state.customer_shipments.find((s: { number: string }) => s.number === 'SO-1131').list_status).not.toBe('done');

    const adjustments = ws.result('NWL_947_20261120.result.csv');
    expect(adjustments.map((r) => `${r.line}:${r.document}:${r.status}`)).toEqual([
      '3:SKU-00001:ok', '4:SKU-00001:ok', '5:SKU-00001:ok', '6:SKU-00001:ok', '7:SKU-00001:ok', '8:SKU-00001:ok',
      '9:SKU-00002:ok', '10:SKU-00002:ok', '11:SKU-00003:ok', '12:SKU-00003:ok',
      '13:SKU-00004:error', '14:SKU-00004:error', '15:SKU-00005:error', '16:SKU-00005:error', '17:SKU-00005:error',
    ]);
  });
});
