import type { Drop, FolderRole } from './drop.js';

export interface FolderRetention {
  /** Files in archive/ older than this many days are deleted. */
  archiveRetentionDays?: number;
  /** Files in outbox/ (result files, work lists) older than this many days are deleted. */
  outboxRetentionDays?: number;
}

export interface FolderPruneResult {
  folder: FolderRole;
  removed: string[];
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Deletes the files of archive/ and outbox/ whose modification time is older than the drop's retention
 * (only those two folders, only regular files directly in them; nothing when a retention is not set).
 * One file at a time: housekeeping need not compete with the files in flight for the drop.
 */
export async function pruneDropFolders(drop: Drop, retention: FolderRetention, now: number, signal?: AbortSignal): Promise<FolderPruneResult[]> {
  const results: FolderPruneResult[] = [];
  const plan: Array<[FolderRole, number | undefined]> = [['archive', retention.archiveRetentionDays], ['outbox', retention.outboxRetentionDays]];
  for (const [folder, days] of plan) {
    if (days === undefined) continue;
    const cutoff = now - days * DAY_MS;
    const removed: string[] = [];
    for (const entry of await drop.list(folder)) {
      if (signal?.aborted) break;
      if (entry.mtimeMs >= cutoff) continue;
      if (await drop.remove(folder, entry.name)) removed.push(entry.name);
    }
    results.push({ folder, removed });
  }
  return results;
}
