/**
 * How urgent each kind of alert of the inbox is. Critical: data may be wrong or stuck until someone acts (rows whose
 * outcome is unknown, a lost instance, a file rejected whole, a missed file, a job that cannot run, an X12 set a
 * trading partner rejected). Warning: work left for an operator that waits safely (failed rows a re-drive sends again,
 * a partner's acknowledgement overdue). Info: about the alerting itself (a
 * webhook delivery that failed: the alert it carried is in the inbox with its own severity).
 */
export type AlertSeverity = 'critical' | 'warning' | 'info';

/** Most severe first: the order of the alert inbox and of the overview's banner. */
export const ALERT_SEVERITIES: readonly AlertSeverity[] = ['critical', 'warning', 'info'];

const SEVERITY_OF_KIND: ReadonlyMap<string, AlertSeverity> = new Map([
  ['rows-uncertain', 'critical'], ['instance-lost', 'critical'], ['file-rejected', 'critical'], ['missed-file', 'critical'],
  ['drop-unreachable', 'critical'], ['authentication', 'critical'], ['job-failed', 'critical'], ['x12-set-rejected', 'critical'],
  ['file-failed', 'warning'], ['x12-ack-overdue', 'warning'],
  ['webhook-failed', 'info'],
]);

/** A kind this table does not know (raised by a newer bridge on the same journal) is a warning. */
export function alertSeverity(kind: string): AlertSeverity {
  return SEVERITY_OF_KIND.get(kind) ?? 'warning';
}

/** The severity's rank as SQL over the column `kind` (0 most severe), for an ORDER BY that keeps the LIMIT to the most severe. */
export function severityRankSql(): string {
  const unknown = ALERT_SEVERITIES.indexOf('warning');
  const whens = [...SEVERITY_OF_KIND].map(([kind, severity]) => `WHEN '${kind}' THEN ${ALERT_SEVERITIES.indexOf(severity)}`).join(' ');
  return `CASE kind ${whens} ELSE ${unknown} END`;
}
