/*
 * A disk whose sync is slow, for benches only: preloaded into a process (LD_PRELOAD), it makes every fsync and
 * fdatasync of that process (and of its children) take SLOW_SYNC_US microseconds longer than the disk's own. Cloud
 * block storage syncs in milliseconds where this machine's disk takes ~0.2–1 ms; what the bridge does with that
 * wait (src/journal/sqlite/wal-sync.ts) shows only when it is long. SQLite's syncs go through libc too, so builds
 * that sync inside COMMIT are slowed alike.
 *   gcc -shared -fPIC -O2 -o /tmp/slow-sync.so bench/slow-sync.c -ldl
 *   LD_PRELOAD=/tmp/slow-sync.so SLOW_SYNC_US=3000 npx tsx bench/files.ts 8
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static useconds_t extra(void) {
  const char *given = getenv("SLOW_SYNC_US");
  return given ? (useconds_t)atoi(given) : 0;
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  int result = real(fd);
  usleep(extra());
  return result;
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  int result = real(fd);
  usleep(extra());
  return result;
}
