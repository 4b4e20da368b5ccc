import { createHash } from 'node:crypto';
import { findSidecar, parseSidecar, readSidecar, type Drop, type DropOptions, type Sidecar } from '../drops/index.js';
import { isWisbridgeError } from '../errors.js';
import type { Snapshot } from './source.js';

type ChecksumOptions = Pick<DropOptions, 'checksumSidecar' | 'checksumMissing' | 'checksumMismatch'>;

/** What to do with a file after its checksum file was looked at: go on, leave it in the inbox, or refuse it. */
export type SidecarVerdict = { verdict: 'ok'; sidecar?: Sidecar } | { verdict: 'wait' | 'error'; reason: string; sidecar?: Sidecar };

/**
 * Checks `inbox/NAME` against `NAME.sha256` / `NAME.md5` before anything of it is claimed or mapped. The digest is
 * that of the private copy the bridge will map (sha256: the claim's own checksum), so what is verified is what is applied.
 */
export async function checkSidecar(drop: Drop, options: ChecksumOptions, name: string, snapshot: Snapshot): Promise<SidecarVerdict> {
  if (options.checksumSidecar === 'off') return { verdict: 'ok' };
  const sidecar = await findSidecar(drop, 'inbox', name);
  let text: string | undefined;
  try {
    if (sidecar) text = await readSidecar(drop, 'inbox', sidecar);
  } catch (error) {
    if (!isWisbridgeError(error, 'DROP_NOT_FOUND')) throw error;
  }
  if (!sidecar || text === undefined) {
    if (options.checksumSidecar !== 'require') return { verdict: 'ok' };
    return { verdict: options.checksumMissing, reason: `FILE_CHECKSUM: ${name} has no checksum file (${name}.sha256 or ${name}.md5), and the drop requires one (checksum_sidecar: require)` };
  }
  const parsed = parseSidecar(text, name, sidecar.algorithm);
  if ('problem' in parsed) return { verdict: options.checksumMismatch, sidecar, reason: `FILE_CHECKSUM: ${sidecar.name} ${parsed.problem}` };
  const actual = sidecar.algorithm === 'sha256' ? snapshot.checksum : await md5Of(snapshot);
  if (actual !== parsed.digest) {
    return {
      verdict: options.checksumMismatch, sidecar,
      reason: `FILE_CHECKSUM: ${name} does not match ${sidecar.name}: its ${sidecar.algorithm} is ${actual}, the checksum file says ${parsed.digest} (a damaged or incomplete transfer?); nothing of it was applied`,
    };
  }
  return { verdict: 'ok', sidecar };
}

async function md5Of(snapshot: Snapshot): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of snapshot.open()) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
