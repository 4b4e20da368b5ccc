import type { InstanceRecord } from '../contract.js';

/**
 * What an instance of the journal's list is: `live` (a heartbeat within a lease), `stopped` (it retired gracefully),
 * `lost` (silent for longer than a lease without stopping: killed, crashed, its VM gone), or `replaced` (silent, but an
 * instance started on its host since: the crash is over once the new process runs).
 */
export type InstanceState = 'live' | 'stopped' | 'lost' | 'replaced';

export type InstanceView = InstanceRecord & { state: InstanceState };

/**
 * Each instance with its state. Heartbeats are the database's clock, so silence is measured against the freshest
 * heartbeat of the list, never against this process's clock. A lost instance stays lost until it heartbeats again, an
 * instance runs on its host again, or it leaves the list (an operator forgets it, or the journal after a week).
 */
export function instanceStates(instances: readonly InstanceRecord[], leaseMs: number): InstanceView[] {
  const running = instances.filter((i) => i.stoppedAt === null);
  const freshest = Math.max(0, ...running.map((i) => Date.parse(i.heartbeatAt)));
  return instances.map((instance): InstanceView => {
    if (instance.stoppedAt !== null) return { ...instance, state: 'stopped' };
    const lastHeard = Date.parse(instance.heartbeatAt);
    if (freshest - lastHeard <= leaseMs) return { ...instance, state: 'live' };
    const replaced = instances.some((other) => other.host === instance.host && Date.parse(other.startedAt) > lastHeard);
    return { ...instance, state: replaced ? 'replaced' : 'lost' };
  });
}

/** The journal's instances at one moment of a chart: how many were live, how many lost. */
export interface InstanceBucket {
  /** The bucket's start, ISO (UTC), as the activity buckets'. */
  start: string;
  /** Instances live at the bucket's end (at `now` for the bucket under way): started, not stopped, heard within a lease. */
  alive: number;
  /** Instances lost at its end: silent for longer than a lease, never stopped, no newer instance started on their host. */
  lost: number;
}

/**
 * The instances live and lost at the end of each bucket (`stepMs` long from each start; the last one ends at `now`),
 * from what the journal's list keeps of each: when it started, its last heartbeat, when it stopped. An instance heard
 * after a bucket's end was live through it (heartbeats do not stop and start again without a new instance, but for a
 * journal out of reach); one stopped before the end, or started after it, is not counted. The list forgets an instance
 * a week after its last heartbeat, and an operator may forget a lost one: those are counted nowhere.
 */
export function instanceTimeline(instances: readonly InstanceRecord[], leaseMs: number, starts: readonly string[], stepMs: number, now: number): InstanceBucket[] {
  return starts.map((start) => {
    const end = Math.min(Date.parse(start) + stepMs, now);
    let alive = 0;
    let lost = 0;
    for (const i of instances) {
      if (Date.parse(i.startedAt) > end || (i.stoppedAt !== null && Date.parse(i.stoppedAt) <= end)) continue;
      const lastHeard = Date.parse(i.heartbeatAt);
      if (end - lastHeard <= leaseMs) {
        alive++;
        continue;
      }
      const replaced = instances.some((other) => other.host === i.host && Date.parse(other.startedAt) > lastHeard && Date.parse(other.startedAt) <= end);
      if (!replaced) lost++;
    }
    return { start, alive, lost };
  });
}
