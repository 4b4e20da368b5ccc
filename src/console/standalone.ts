import type { Journal } from '../journal/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { scheduleOf } from '../service/business-schedule.js';
import { scheduleCursor } from '../service/service.js';
import type { AlertLog } from './alerts.js';
import { ProgressRegistry } from './progress.js';

import { ActionsInFlight, type ConsoleSource, type JobView } from './source.js';

/** `wisbridge console`: jobs as configured, next runs from their schedules, last runs from the journal's schedule cursors. */
export function standaloneSource(runtime: Runtime, alerts: AlertLog, now: () => number = Date.now): ConsoleSource {
  const { config } = runtime.loaded;
  let journal: Journal | undefined;
  void runtime.journal().then((j) => { journal = j; }, () => undefined);
  const jobs = [
    ...config.inbound.map((j) => ({ name: j.name, kind: 'inbound' as const, drop: j.drop, schedule: j.schedule, watch: j.watch })),
    ...config.exports.map((j) => ({ name: j.name, kind: 'export' as const, drop: j.drop, schedule: j.schedule, watch: false })),
  ].map((j) => ({ ...j, cron: j.schedule ? scheduleOf(j.schedule, config) : undefined }));
  return {
    mode: 'console',
    runtime,
    actions: new ActionsInFlight(),
    progress: new ProgressRegistry(now),
    alerts: () => alerts.list(),
    jobs: () => jobs.map((j): JobView => {
      const next = j.cron?.next(now()) ?? null;
      const last = journal?.getCursor(scheduleCursor(j.name)) ?? null;
      return {
        name: j.name, kind: j.kind, drop: j.drop, schedule: j.cron?.toString() ?? null, watch: j.watch,
        nextRun: next === null ? null : new Date(next).toISOString(), lastRun: last ? { at: last } : null, running: false,
      };
    }),
  };
}
