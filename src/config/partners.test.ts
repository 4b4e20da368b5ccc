import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfigFile } from './check.js';
import { checkConfigText } from './check-text.js';
import { ackExpectedWithinMs, partnerOf, partnerSchema, writerSeparatorsOf } from './partners.js';

const BASE = `
services:
  main: { url: http://127.0.0.1:8080, token: { env: WIS_TEST_TOKEN } }
drops:
  nwl: { type: local, root: ./drop }
`;

const PARTNERS = `partners:
  NWL:
    them: { qualifier: ZZ, id: NWLWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    application_code: NWL
    version: "005010"
    separators: { element: "|", component: ":", segment: "~" }
    usage: T
  ACME:
    them: { qualifier: "01", id: "123456789" }
    us: { qualifier: ZZ, id: WISBRIDGE }
    acknowledgements: false
inbound:
  - name: edi
    drop: nwl
    service: main
    x12:
      - { transaction_set: "945", mapping: x12-945, partner: NWL }
      - { transaction_set: "947", mapping: x12-947 }
`;

describe('partner profiles', () => {
  it('reads a profile with its defaults, and finds the sender by ISA05/06 or GS02', () => {
    const { config, problems } = checkConfigText(BASE + PARTNERS, 'wisbridge.yaml');
    expect(problems).toEqual([]);
    const nwl = config!.partners.NWL!;
    expect(nwl).toMatchObject({ version: '005010', usage: 'T', acknowledgements: true, separators: { element: '|', component: ':', segment: '~', repetition: '^' } });
    expect(writerSeparatorsOf(nwl)).toEqual({ element: '|', component: ':', segment: '~', repetition: '^', lineBreak: '\n' });
    expect(config!.partners.ACME!.version).toBe('004010');
    expect(partnerOf(config!.partners, { senderQualifier: 'ZZ', sender: 'NWLWMS         ' })?.name).toBe('NWL');
    expect(partnerOf(config!.partners, { senderQualifier: '01', sender: '123456789      ' })?.name).toBe('ACME');
    expect(partnerOf(config!.partners, { senderQualifier: 'ZZ', sender: 'OTHER', applicationSender: 'NWL' })?.name).toBe('NWL');
    expect(partnerOf(config!.partners, { senderQualifier: 'ZZ', sender: 'OTHER', applicationSender: 'X' })).toBeUndefined();
    expect(config!.inbound[0]!.x12).toEqual([
      { transaction_set: '945', mapping: 'x12-945', partner: 'NWL' }, { transaction_set: '947', mapping: 'x12-947' },
    ]);
  });

  it('reports every problem of a bad profile at its line and column', () => {
    const bad = PARTNERS
      .replace('id: NWLWMS', 'id: NWL-WAREHOUSE-SYSTEMS')
      .replace('qualifier: "01"', 'qualifier: Z')
      .replace('component: ":"', 'component: "|"')
      .replace('usage: T', 'usage: X')
      .replace('application_code: NWL', 'application_code: N~L')
      .replace('partner: NWL', 'partner: NWK')
      .replace('transaction_set: "947"', 'transaction_set: "94"');
    const { problems } = checkConfigText(BASE + bad, 'wisbridge.yaml');
    const lines = (BASE + bad).split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    const found = problems.map((p) => `${p.line}: ${p.message}`);
    expect(found).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`^${at('NWL-WAREHOUSE')}: .*at most 15 characters`)),
      expect.stringMatching(new RegExp(`^${at('qualifier: Z, id: "123')}: .*two characters`)),
      expect.stringMatching(new RegExp(`^${at('component: "|"')}: .*already the element separator`)),
      expect.stringMatching(new RegExp(`^${at('usage: X')}: `)),
      expect.stringMatching(new RegExp(`^${at('application_code: N~L')}: .*holds the separator "~"`)),
      expect.stringMatching(new RegExp(`^${at('partner: NWK')}: .*unknown partner "NWK"`)),
      expect.stringMatching(new RegExp(`^${at('transaction_set: "94"')}: .*transaction set identifier`)),
    ]));
    expect(problems.every((p) => p.file === 'wisbridge.yaml' && p.col > 0)).toBe(true);
    expect(problems).toHaveLength(7);
  });

  it('reads ack_expected_within as a duration, and refuses one that is not, at its line', () => {
    const profile = (within: string) => `partners:\n  NWL:\n    them: { qualifier: ZZ, id: NWLWMS }\n    us: { qualifier: ZZ, id: WISBRIDGE }\n    ack_expected_within: ${within}\n`;
    const { config, problems } = checkConfigText(BASE + profile('4h'), 'wisbridge.yaml');
    expect(problems).toEqual([]);
    expect(ackExpectedWithinMs(config!.partners.NWL)).toBe(4 * 3_600_000);
    expect(ackExpectedWithinMs(partnerSchema.parse({ them: { qualifier: 'ZZ', id: 'A' }, us: { qualifier: 'ZZ', id: 'B' }, ack_expected_within: '30m' }))).toBe(1_800_000);
    expect(ackExpectedWithinMs(partnerSchema.parse({ them: { qualifier: 'ZZ', id: 'A' }, us: { qualifier: 'ZZ', id: 'B' } }))).toBeUndefined();
    for (const bad of ['4 hours', '0h', '-1d', '90s']) {
      const refused = checkConfigText(BASE + profile(bad), 'wisbridge.yaml').problems;
      expect(refused.map((p) => [p.line, p.message]), bad).toEqual([[(BASE + profile(bad)).split('\n').findIndex((l) => l.includes('ack_expected_within')) + 1, expect.stringContaining('a duration in minutes, hours or days, e.g. 30m, 4h or 1d')]]);
    }
  });

  it('refuses separators that are letters, digits or spaces', () => {
    const parsed = partnerSchema.safeParse({ them: { qualifier: 'ZZ', id: 'A' }, us: { qualifier: 'ZZ', id: 'B' }, separators: { element: 'A' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['separators', 'element']);
  });

  it('config check refuses a route to a mapping that does not read that set, or no X12 at all', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-partners-'));
    const file = join(dir, 'wisbridge.yaml');
    const text = `mappings: ${resolve('mappings')}\n` + BASE + PARTNERS
      .replace('mapping: x12-947', 'mapping: x12-945-customer-shipment-ship')
      .replace('mapping: x12-945', 'mapping: inventory-adjustments');
    await writeFile(file, text);
    const problems = await checkConfigFile(file, { secrets: false });
    const lines = text.split('\n');
    expect(problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      `${lines.findIndex((l) => l.includes('mapping: inventory-adjustments')) + 1}: inbound.0.x12.0.mapping: "inventory-adjustments" reads csv files, not x12`,
      `${lines.findIndex((l) => l.includes('"947", mapping: x12-945')) + 1}: inbound.0.x12.1.mapping: "x12-945-customer-shipment-ship" reads 945 transaction sets, the route takes 947`,
    ]);
  });
});
