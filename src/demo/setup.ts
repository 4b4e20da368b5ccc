import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { WisbridgeError } from '../errors.js';
import type { MappingSet } from '../mapping/index.js';

/** The package root: samples/ and mappings/ ship with the sources. */
export const PACKAGE_ROOT = resolve(import.meta.dirname, '../..');
export const SAMPLES_DIR = join(PACKAGE_ROOT, 'samples');
export const MAPPINGS_DIR = join(PACKAGE_ROOT, 'mappings');
/** The date the samples were written for (the emulator's "today": cycle counts must be dated before it). */
export const DEMO_TODAY = '2026-11-22';
const MARKER = '.wisbridge-demo';

/**
 * The work types wait for the WMS's confirmation (the ACK_* samples) before they are acknowledged: the demo
 * shows the whole round trip. With the default policy (on-export) the ACK samples would find their records
 * acknowledged already.
 */
export const EXPORTS: ReadonlyArray<{ name: string; workType: string; mapping: string; acknowledge?: string }> = [
  { name: 'customer-shipments', workType: 'customerShipments', mapping: 'customer-shipments-export', acknowledge: 'on-confirmation' },
  { name: 'outbound-transfers', workType: 'outboundTransfers', mapping: 'outbound-transfers-export', acknowledge: 'on-confirmation' },
  { name: 'inbound-transfers', workType: 'inboundTransfers', mapping: 'inbound-transfers-export', acknowledge: 'on-confirmation' },
  { name: 'supplier-shipments', workType: 'supplierShipments', mapping: 'supplier-shipments-export', acknowledge: 'on-confirmation' },
  { name: 'customer-returns', workType: 'customerReturns', mapping: 'customer-returns-export', acknowledge: 'on-confirmation' },
  { name: 'products', workType: 'products', mapping: 'products-export' },
];

/**
 * A fresh demo folder. An existing folder is wiped only when an earlier demo made it (marker file) or it
 * is empty: `--dir ~` must never delete anyone's files.
 */
export async function freshDemoDir(dir: string): Promise<void> {
  if (existsSync(dir)) {
    const entries = await readdir(dir);
    if (entries.length > 0 && !entries.includes(MARKER)) {
      throw new WisbridgeError('USAGE', `${dir} exists and was not made by wisbridge demo: choose another --dir (it would be wiped)`);
    }
    await rm(dir, { recursive: true, force: true });
  }
  for (const folder of ['inbox', 'outbox', 'archive', 'error']) await mkdir(join(dir, 'wms', folder), { recursive: true });
  await writeFile(join(dir, MARKER), 'made by wisbridge demo; wiped by the next run\n');
}

/** The demo configuration: one service (the emulator), one local drop, one inbound job, an export job per work type. */
export function demoConfig(url: string): string {
  const exportsYaml = EXPORTS.map((e) => `  - name: ${e.name}
    work_type: ${e.workType}
    drop: wms
    service: emulator
    mapping: ${e.mapping}${e.acknowledge ? `\n    acknowledge: ${e.acknowledge}` : ''}
    schedule: { cron: "0 2 * * *", timezone: Europe/Berlin }`).join('\n');
  return `# Written by wisbridge demo. Try: wisbridge status --config wisbridge.yaml
journal: journal.sqlite
mappings: ${JSON.stringify(MAPPINGS_DIR)}
services:
  emulator:
    url: ${url}
    token: { file: token }        # secrets by reference only; the demo token is valid for 24 h
drops:
  wms:
    type: local
    root: wms                    # inbox/ outbox/ archive/ error/
    settle_ms: 0                 # the demo copies files before it starts; a real drop waits for uploads to settle
    watch_events: false
    poll_interval_ms: 1000       # look at the inbox every second (default 5 s)
inbound:
  - name: wms-inbound
    drop: wms
    service: emulator
    watch: true
exports:
${exportsYaml}
metrics: { host: 127.0.0.1, port: 9464 }
shutdown_timeout_ms: 10000
`;
}

/** Copies every sample an inbound mapping picks up into the inbox; returns their names. */
export async function copySamples(mappings: MappingSet, inbox: string): Promise<string[]> {
  const names = (await readdir(SAMPLES_DIR)).filter((n) => !n.includes('.expected.') && mappings.find(n, 'inbound') !== undefined).sort();
  for (const name of names) await copyFile(join(SAMPLES_DIR, name), join(inbox, name));
  return names;
}
