import { createHash } from 'node:crypto';
import { dropError, type Drop, type FolderRole } from './drop.js';

// Checksum sidecars: `NAME.sha256` / `NAME.md5` beside a file, in the formats sha256sum/md5sum and their BSD
// variants write. Inbound they are verified (src/pipeline/sidecar.ts); outbound written by CompanionDrop.

export type ChecksumAlgorithm = 'sha256' | 'md5';
export const SIDECAR_SUFFIXES: ReadonlyArray<readonly [string, ChecksumAlgorithm]> = [['.sha256', 'sha256'], ['.md5', 'md5']];
const HEX_LENGTH: Record<ChecksumAlgorithm, number> = { sha256: 64, md5: 32 };
/** A sidecar is a line or a few; anything bigger is not one, and is not read into memory. */
const MAX_SIDECAR_BYTES = 64 * 1024;

export interface Sidecar {
  name: string;
  algorithm: ChecksumAlgorithm;
}

export function isSidecarName(name: string): boolean {
  const lower = name.toLowerCase();
  return SIDECAR_SUFFIXES.some(([suffix]) => lower.endsWith(suffix));
}

/** The sidecar of `name` in `folder` (sha256 first), or undefined. */
export async function findSidecar(drop: Drop, folder: FolderRole, name: string): Promise<Sidecar | undefined> {
  // asked together: on a distant SFTP server each is a round trip
  const found = await Promise.all(SIDECAR_SUFFIXES.map(([suffix]) => drop.stat(folder, name + suffix)));
  const at = found.findIndex((entry) => entry !== undefined);
  return at < 0 ? undefined : { name: name + SIDECAR_SUFFIXES[at][0], algorithm: SIDECAR_SUFFIXES[at][1] };
}

/**
 * The digest a sidecar holds for `forName` (lower-case hex), or a reason it holds none. Accepted lines: `HEX`,
 * `HEX  NAME`, `HEX *NAME` (sha256sum, md5sum) and `SHA256 (NAME) = HEX` (BSD); a line naming another file is skipped.
 */
export function parseSidecar(text: string, forName: string, algorithm: ChecksumAlgorithm): { digest: string } | { problem: string } {
  const hex = `[0-9a-fA-F]{${HEX_LENGTH[algorithm]}}`;
  const gnu = new RegExp(`^(${hex})(?:\\s+\\*?(.+))?$`);
  const bsd = new RegExp(`^${algorithm}\\s*\\((.+)\\)\\s*=\\s*(${hex})$`, 'i');
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  for (const line of lines) {
    let m = gnu.exec(line);
    if (m && (m[2] === undefined || m[2] === forName)) return { digest: m[1].toLowerCase() };
    m = bsd.exec(line);
    if (m && m[1] === forName) return { digest: m[2].toLowerCase() };
  }
  if (lines.length === 0) return { problem: 'is empty' };
  return { problem: `holds no ${algorithm} digest for ${forName} (expected "<${HEX_LENGTH[algorithm]} hex digits>  ${forName}")` };
}

/** Reads a sidecar (at most 64 KiB) from the drop. */
export async function readSidecar(drop: Drop, folder: FolderRole, sidecar: Sidecar): Promise<string> {
  const stream = await drop.openRead(folder, sidecar.name);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_SIDECAR_BYTES) throw dropError('DROP_IO', { drop: drop.name }, `${folder}/${sidecar.name} is larger than ${MAX_SIDECAR_BYTES} bytes: not a checksum file`);
      chunks.push(chunk);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The sidecar text the bridge writes: sha256sum's format, so `sha256sum -c NAME.sha256` checks it. */
export function sidecarText(digest: string, name: string): string {
  return `${digest}  ${name}\n`;
}

export function newHash(algorithm: ChecksumAlgorithm) {
  return createHash(algorithm);
}
