import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';
import { pruneDropFolders, type Drop } from '../../src/drops/index.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { localBacking, sftpBacking, sftpOptions, type Backing } from './fixtures.js';

const DAY = 24 * 3600 * 1000;
let server: SftpServer;
beforeAll(async () => { server = await startSftpServer(); });
afterAll(async () => { await server?.stop(); });

const cases: Array<[string, () => { backing: Backing; drop: Drop }]> = [
  ['local', () => { const backing = localBacking(); return { backing, drop: createDrop({ type: 'local', root: backing.root }) }; }],
  ['sftp (OpenSSH)', () => { const backing = sftpBacking(server); return { backing, drop: createDrop(sftpOptions(server, backing.root)) }; }],
];

describe.each(cases)('archive/outbox retention: %s drop', (_label, make) => {
  let fx: { backing: Backing; drop: Drop } | undefined;
  afterEach(async () => {
    await fx?.drop.close();
    fx?.backing.cleanup();
  });

  it('deletes only files older than the retention, only in archive/ and outbox/', async () => {
    fx = make();
    const { backing, drop } = fx;
    const now = Date.now();
    const aged = (rel: string, days: number) => {
      const path = backing.put(rel, 'x');
      utimesSync(path, (now - days * DAY) / 1000, (now - days * DAY) / 1000);
    };
    aged('archive/old.csv', 40);
    aged('archive/recent.csv', 2);
    aged('outbox/old.result.csv', 40);
    aged('outbox/mid.result.csv', 10);
    aged('inbox/old-inbox.csv', 400);
    aged('error/old-error.csv', 400);
    backing.mkdir('archive/sub');
    aged('archive/sub/nested-old.csv', 400);

    const result = await pruneDropFolders(drop, { archiveRetentionDays: 30, outboxRetentionDays: 7 }, now);
    expect(result).toEqual([
      { folder: 'archive', removed: ['old.csv'] },
      { folder: 'outbox', removed: ['mid.result.csv', 'old.result.csv'] },
    ]);
    expect(readdirSync(backing.path('archive')).sort()).toEqual(['recent.csv', 'sub']);
    expect(readdirSync(backing.path('outbox'))).toEqual([]);
    expect(existsSync(backing.path('inbox/old-inbox.csv')) && existsSync(backing.path('error/old-error.csv'))).toBe(true);
    expect(existsSync(backing.path('archive/sub/nested-old.csv'))).toBe(true);

    expect(await pruneDropFolders(drop, { outboxRetentionDays: 1 }, now)).toEqual([{ folder: 'outbox', removed: [] }]);
    expect(await pruneDropFolders(drop, {}, now)).toEqual([]);
  });
});
