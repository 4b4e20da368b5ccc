import { describe, expect, it } from 'vitest';
import { checkConfigText } from './check-text.js';

const BASE = `
services:
  main: { url: http://127.0.0.1:8080, token: { env: WIS_TEST_TOKEN } }
drops:
  nwl: { type: local, root: ./drop }
partners:
  NWL:
    them: { qualifier: ZZ, id: NWLWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
exports:
`;

const job = (fields: string) => `  - { name: j, drop: nwl, service: main, mapping: m, ${fields} }\n`;

describe('export jobs writing X12', () => {
  it('take a known partner for the four work types written as 940 or 943; csv by default', () => {
    const { config, problems } = checkConfigText(BASE + job('work_type: supplierShipments, format: x12, partner: NWL'), 'wisbridge.yaml');
    expect(problems).toEqual([]);
    expect(config!.exports[0]).toMatchObject({ format: 'x12', partner: 'NWL' });
    expect(checkConfigText(BASE + job('work_type: customerShipments'), 'wisbridge.yaml').config!.exports[0]!.format).toBe('csv');
  });

  it('refuse a missing or unknown partner and a work type not written as X12, each at its line', () => {
    const messages = (fields: string) => checkConfigText(BASE + job(fields), 'wisbridge.yaml').problems.map((p) => p.message);
    expect(messages('work_type: customerShipments, format: x12')).toEqual([expect.stringMatching(/names the partner profile/)]);
    expect(messages('work_type: customerShipments, format: x12, partner: ACME')).toEqual([expect.stringMatching(/unknown partner "ACME" \(known: NWL\)/)]);
    expect(messages('work_type: customerReturns, format: x12, partner: NWL')).toEqual([expect.stringMatching(/format x12 writes customerShipments, .*not customerReturns/)]);
  });
});
