import type { InstanceRecord } from '../journal/index.js';

/** How many instances of the journal's list are live, and how many were lost (`wisbridge_instances{state}`). */
export interface InstanceCensus {
  live: number;
  lost: number;
}

/**
 * An instance is lost when it did not stop gracefully, its last heartbeat is older than a lease, and no instance
 * started on its host since (a restart there replaced it: the crash is over once the new process runs). A lost VM
 * stays lost until an instance runs on that host again or the journal forgets it. Heartbeats are the database's
 * clock, so they are compared with the freshest heartbeat of the list, never with this process's clock.
 */
export function instanceCensus(instances: readonly InstanceRecord[], leaseMs: number): InstanceCensus {
  const running = instances.filter((i) => i.stoppedAt === null);
  const freshest = Math.max(0, ...running.map((i) => Date.parse(i.heartbeatAt)));
  const silent = (i: InstanceRecord) => freshest - Date.parse(i.heartbeatAt) > leaseMs;
  let live = 0;
  let lost = 0;
  for (const instance of running) {
    if (!silent(instance)) {
      live += 1;
      continue;
    }
    const lastHeard = Date.parse(instance.heartbeatAt);
    const replaced = instances.some((other) => other.host === instance.host && Date.parse(other.startedAt) > lastHeard);
    if (!replaced) lost += 1;
  }
  return { live, lost };
}
