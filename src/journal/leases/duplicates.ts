import { WisbridgeError } from '../../errors.js';
import { toEvent, type DuplicateClaim, type EventRow, type NewDuplicate } from '../admin/reads.js';
import { stateError } from '../core/rows.js';
import type { LeaseContext } from './lease-context.js';

/* The handling of a re-drop (a duplicate file event), leased like a file's when the journal has an instance. */

/** The event's handling is this journal's: its token kept (heartbeats renew its lease). */
function handled(c: LeaseContext, status: 'new' | 'resume', row: EventRow & { lease_token: number }): DuplicateClaim {
  if (c.mode) c.mode.events.set(row.id, row.lease_token);
  return { status, event: toEvent(row) };
}

/** The handling of a re-drop, claimed once (ClaimsAndRequests.claimDuplicate). */
export function claimDuplicate(c: LeaseContext, d: NewDuplicate): Promise<DuplicateClaim> {
  const { mode, q } = c;
  return c.sql.tx(async (t): Promise<DuplicateClaim> => {
    const key = [d.drop, d.name, d.originalFileId];
    const me = mode?.instance.id ?? null;
    // An unfinished event that finishes between the insert and the take leaves room for a new one: looked at again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const fields = [d.drop, d.name, d.originalFileId, d.reason, c.now(), d.resultName];
      const inserted = mode
        ? await t.get<EventRow & { lease_token: number }>(q.insertLeasedDuplicate, [...fields, me, mode.leaseMs])
        : await t.get<EventRow & { lease_token: number }>(q.insertDuplicate, fields);
      if (inserted) return handled(c, 'new', inserted);
      // Another handler recorded it first. Without instances (one command at a time) its handling stopped: finished here.
      const taken = mode
        ? await t.get<EventRow & { lease_token: number }>(q.takeEvent.sql, q.takeEvent.params({ owner: mode.instance.id, leaseMs: mode.leaseMs, drop: d.drop, name: d.name, originalFileId: d.originalFileId }))
        : await t.get<EventRow & { lease_token: number }>(q.unfinishedEvent, key);
      if (taken) return handled(c, 'resume', taken);
      const live = await t.get<EventRow & { lease_owner: string | null }>(q.unfinishedEvent, key);
      if (live) return { status: 'busy', eventId: live.id, owner: live.lease_owner ?? 'an unknown instance' };
    }
    throw stateError(`the duplicate ${d.name} of file ${d.originalFileId} could not be recorded: its event kept changing`);
  });
}

/** The handling of a claimed duplicate ended: its lease given up, or (`unused`) the event removed. */
export async function releaseFileEvent(c: LeaseContext, eventId: number, options: { unused?: boolean }): Promise<void> {
  const { mode, q } = c;
  const held = mode?.events.get(eventId);
  mode?.events.delete(eventId);
  if (options.unused) await c.sql.run(q.forgetEvent, [eventId, mode?.instance.id ?? null, held ?? 0]);
  else if (mode && held !== undefined) await c.sql.run(q.releaseEvent, [eventId, mode.instance.id, held]);
}

/** A re-drop's move, fenced like a file's writes when this journal handles it (claimDuplicate gave it a token). */
export async function recordEventDisposition(c: LeaseContext, eventId: number, where: string): Promise<void> {
  const { mode, q } = c;
  const held = mode?.events.get(eventId);
  if (mode === undefined || held === undefined) {
    await c.sql.run(q.eventDisposedToUnfenced, [where, eventId]);
    return;
  }
  if ((await c.sql.run(q.eventDisposedTo, [where, eventId, mode.instance.id, held])) !== 1) {
    throw new WisbridgeError('LEASE_LOST', `the re-drop of file event ${eventId}: instance ${mode.instance.id} no longer holds its lease; its move is not recorded`);
  }
}
