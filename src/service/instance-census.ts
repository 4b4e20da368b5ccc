import { instanceStates, type InstanceRecord } from '../journal/index.js';

/** How many instances of the journal's list are live, and how many were lost (`wisbridge_instances{state}`). */
export interface InstanceCensus {
  live: number;
  lost: number;
}

/** The states of instanceStates, counted: a stopped or replaced instance is neither. */
export function instanceCensus(instances: readonly InstanceRecord[], leaseMs: number): InstanceCensus {
  const states = instanceStates(instances, leaseMs).map((i) => i.state);
  return { live: states.filter((s) => s === 'live').length, lost: states.filter((s) => s === 'lost').length };
}
