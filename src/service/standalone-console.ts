import { ActionsInFlight, ProgressRegistry, type AlertLog, type ConsoleRuntime, type ConsoleSource, type JobView } from '../console/index.js';
import { scheduleOf } from '../schedule/index.js';
import { scheduleCursor } from './service.js';

/** `wisbridge console`: jobs as configured, next runs from their schedules, last runs from the journal's schedule cursors. */
export function standaloneSource(runtime: ConsoleRuntime, alerts: AlertLog, now: () => number = Date.now): ConsoleSource {
  const { config } = runtime.loaded;
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
    jobs: async () => {
      const journal = await runtime.journal();
      const views: JobView[] = [];
      for (const j of jobs) {
        const next = j.cron?.next(now()) ?? null;
        const last = await journal.getCursor(scheduleCursor(j.name));
        views.push({
          name: j.name, kind: j.kind, drop: j.drop, schedule: j.cron?.toString() ?? null, watch: j.watch,
          nextRun: next === null ? null : new Date(next).toISOString(), lastRun: last ? { at: last } : null, running: false,
        });
      }
      return views;
    },
  };
}
