import { z } from 'zod';

/** Fault injection for the client's resilience tests. Applies to /v1 paths only, never to /_admin. */
export const faultsSchema = z.strictObject({
  latency_ms: z.number().int().min(0).max(60_000).default(0),
  error_rate: z.number().min(0).max(1).default(0),
  error_status: z.number().int().min(400).max(599).default(503),
  rate_limit_rate: z.number().min(0).max(1).default(0),
  retry_after_s: z.number().int().min(0).max(3600).default(1),
  reset_rate: z.number().min(0).max(1).default(0),
  /** `before`: the connection is reset before anything is processed; `after`: the write is applied, then the answer is lost. */
  reset_phase: z.enum(['before', 'after']).default('before'),
  /** Only requests whose path starts with this are affected. */
  path_prefix: z.string().startsWith('/').optional(),
  /** When set, only this many faults are injected, then every fault clears by itself. */
  times: z.number().int().min(1).optional(),
});
export type Faults = z.infer<typeof faultsSchema>;
export const NO_FAULTS: Faults = faultsSchema.parse({});

export type FaultDecision = { kind: 'none' } | { kind: 'reset'; phase: 'before' | 'after' } | { kind: 'rate_limit'; retryAfter: number } | { kind: 'error'; status: number };

export class FaultInjector {
  faults: Faults = NO_FAULTS;
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  set(faults: Faults): Faults {
    this.faults = faults;
    return faults;
  }

  applies(path: string): boolean {
    return path.startsWith('/v1/') && (this.faults.path_prefix === undefined || path.startsWith(this.faults.path_prefix));
  }

  /** Draws the fault for one request (latency is separate: it applies to every affected request). */
  decide(): FaultDecision {
    const f = this.faults;
    let d: FaultDecision = { kind: 'none' };
    if (f.reset_rate > 0 && this.random() < f.reset_rate) d = { kind: 'reset', phase: f.reset_phase };
    else if (f.rate_limit_rate > 0 && this.random() < f.rate_limit_rate) d = { kind: 'rate_limit', retryAfter: f.retry_after_s };
    else if (f.error_rate > 0 && this.random() < f.error_rate) d = { kind: 'error', status: f.error_status };
    if (d.kind !== 'none' && f.times !== undefined) {
      this.faults = f.times <= 1 ? NO_FAULTS : { ...f, times: f.times - 1 };
    }
    return d;
  }
}
