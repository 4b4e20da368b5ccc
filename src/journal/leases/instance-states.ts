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
