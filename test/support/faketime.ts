import { ensureAptPackage } from './apt.js';

/** Debian's libfaketime, the thread-safe build (Node runs threads: the mapping thread, libuv's pool). */
const LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';

/**
 * The environment that starts a process whose wall clock is `offset` off (libfaketime's syntax: `+10m`, `-90s`):
 * a machine whose clock drifted, as NTP trouble leaves one. The monotonic clock is left alone, as drift leaves it:
 * timers and durations run true. Installs Debian's libfaketime when it is missing.
 */
export async function skewedClockEnv(offset: string): Promise<NodeJS.ProcessEnv> {
  await ensureAptPackage('libfaketime', LIBRARY);
  return { LD_PRELOAD: LIBRARY, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}
