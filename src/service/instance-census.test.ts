import { describe, expect, it } from 'vitest';
import { instanceStates, type InstanceRecord } from '../journal/index.js';
import { instanceCensus } from './instance-census.js';

const LEASE_MS = 30_000;
const at = (seconds: number) => new Date(Date.parse('2026-12-01T10:00:00Z') + seconds * 1000).toISOString();
const instance = (id: string, host: string, started: number, heartbeat: number, stopped: number | null = null): InstanceRecord => ({
  id, host, pid: 1, version: '1.0.0', startedAt: at(started), heartbeatAt: at(heartbeat), stoppedAt: stopped === null ? null : at(stopped), files: 0, jobs: 0,
});

describe('instanceCensus', () => {
  it('counts an instance silent for more than a lease, measured against the freshest heartbeat, as lost', () => {
    const list = [instance('a', 'bridge-1', 0, 100), instance('b', 'bridge-2', 0, 69), instance('c', 'bridge-3', 0, 75)];
    expect(instanceCensus(list, LEASE_MS)).toEqual({ live: 2, lost: 1 });
  });

  it('does not count an instance that stopped gracefully, nor one a later instance of its host replaced', () => {
    const list = [
      instance('a', 'bridge-1', 0, 100),
      instance('b', 'bridge-2', 0, 10, 10),
      instance('c', 'bridge-3', 0, 20),
      instance('d', 'bridge-3', 50, 99),
    ];
    expect(instanceCensus(list, LEASE_MS)).toEqual({ live: 2, lost: 0 });
  });

  it('counts nothing for an empty list', () => {
    expect(instanceCensus([], LEASE_MS)).toEqual({ live: 0, lost: 0 });
  });
});

describe('instanceStates', () => {
  it('names each instance live, stopped, lost or replaced', () => {
    const list = [
      instance('a', 'bridge-1', 0, 100),
      instance('b', 'bridge-2', 0, 10, 10),
      instance('c', 'bridge-3', 0, 20),
      instance('d', 'bridge-3', 50, 99),
      instance('e', 'bridge-4', 0, 60),
    ];
    expect(instanceStates(list, LEASE_MS).map((i) => [i.id, i.state])).toEqual([['a', 'live'], ['b', 'stopped'], ['c', 'replaced'], ['d', 'live'], ['e', 'lost']]);
  });
});
