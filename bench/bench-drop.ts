// The drop a bench's bridge reads from: local folders under its work folder, or an SFTP drop on the OpenSSH server
// the tests start, behind a link that adds a round trip (BENCH_SFTP_RTT=ms; test/support/delay-proxy.ts).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sftpDropConfig } from '../test/drops/fixtures.js';
import { startDelayProxy, type DelayProxy } from '../test/support/delay-proxy.js';
import { startSftpServer, type SftpServer } from '../test/support/sftp-server.js';

export interface DistantSftp { server: SftpServer; proxy: DelayProxy; rttMs: number }

/** The SFTP server and its link when BENCH_SFTP_RTT is set, else undefined (a local drop). */
export async function distantSftpFromEnv(): Promise<DistantSftp | undefined> {
  if (process.env.BENCH_SFTP_RTT === undefined) return undefined;
  const rttMs = Number(process.env.BENCH_SFTP_RTT);
  const server = await startSftpServer();
  return { server, proxy: await startDelayProxy(server, rttMs / 2), rttMs };
}

export async function stopDistantSftp(sftp: DistantSftp | undefined): Promise<void> {
  await sftp?.proxy.close();
  await sftp?.server.stop();
}

export const describeDrop = (sftp: DistantSftp | undefined) => (sftp ? `an SFTP drop ${sftp.rttMs} ms away` : 'a local drop');

export interface BenchDrop {
  /** The drop's lines under `drops: wms:` of the configuration. */
  yaml: string;
  /** Where its result files land, on this machine. */
  outbox: string;
  cleanup(): void;
}

/** A drop for one run, its inbox holding copies of `files`; the SFTP drop's client key is written into `work`. */
export function benchDrop(work: string, files: readonly string[], sftp: DistantSftp | undefined): BenchDrop {
  if (!sftp) {
    for (const f of ['inbox', 'outbox', 'archive', 'error']) mkdirSync(join(work, f), { recursive: true });
    for (const file of files) copyFileSync(file, join(work, 'inbox', basename(file)));
    return { yaml: `    type: local\n    root: ${work}\n    settle_ms: 0\n    watch_events: false`, outbox: join(work, 'outbox'), cleanup: () => undefined };
  }
  const drop = sftpDropConfig(sftp.server, { port: sftp.proxy.port });
  for (const file of files) drop.backing.put(`inbox/${basename(file)}`, readFileSync(file));
  drop.writeKey(work);
  return {
    yaml: drop.yaml,
    outbox: drop.backing.path('outbox'),
    cleanup: () => drop.backing.cleanup(),
  };
}
