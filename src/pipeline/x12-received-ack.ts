import type { Readable } from 'node:stream';
import { partnerOf, type PartnerProfile } from '../config/partners.js';
import type { ConsoleJournal, ExportSetAck, Journal, NewItem } from '../journal/index.js';
import type { Logger } from '../log.js';
import {
  describeGroupAck, describeSetAck, groupState, readReceivedAcks, setState, startsWithAck,
  type ReceivedAckFile, type ReceivedGroupAck, type ReceivedSetAck,
} from '../x12/index.js';

/*
 * 997/999 acknowledgements a partner sent for the X12 work lists the bridge wrote (docs/x12.md, "Acknowledgements
 * received"). A file whose first transaction set is a 997 or 999 needs no mapping: it is claimed like any input, each
 * acknowledgement is matched to the interchange written (the partner by the sender's ISA05/06 or GS02, the group by
 * AK102, the sets by AK202) and recorded on its export, every AK2 set becomes a row of its result file, and the file
 * is never acknowledged itself (an acknowledgement is not acknowledged).
 */

/** What the claim records as the file's mapping. */
export const RECEIVED_ACKS = 'x12-acknowledgements';

/** A file of received acknowledgements, read whole (they are small: a few segments per set acknowledged). */
export interface AckReading {
  readonly name: typeof RECEIVED_ACKS;
  readonly acks: ReceivedAckFile;
}

/** Open alerts read when one is cleared: an overdue alert beyond the newest this many open ones stays open. */
const OPEN_ALERTS = 500;
export const ACK_OVERDUE = 'x12-ack-overdue';
export const SET_REJECTED = 'x12-set-rejected';

export type ReceivedAckJournal = Pick<Journal, 'addItems' | 'exportOfGroup' | 'recordExportAck' | 'getExport'>
  & { readonly console: Pick<ConsoleJournal, 'raiseAlert' | 'listAlerts' | 'acknowledgeAlert'> };

/** The file's acknowledgements when its first set is a 997 or 999; undefined for any other X12 file (read no further than its first ST). */
export async function readAcksIfAny(open: () => Readable, file: string): Promise<AckReading | undefined> {
  const stream = open();
  try {
    if (!(await startsWithAck(stream, { file }))) return undefined;
  } finally {
    stream.destroy();
  }
  return { name: RECEIVED_ACKS, acks: await readReceivedAcks(open(), { file }) };
}

interface Matched {
  exportId: number;
  fileName: string;
  partner: string;
  group: number;
}

/** What a set's row says, and whether it is the partner's rejection (alerted). */
function setRow(matched: Matched, set: ReceivedSetAck, firstSet: number, sets: number): { status: 'ok' | 'error'; message: string } {
  const where = `export ${matched.exportId} (${matched.fileName}) to ${matched.partner}, group ${matched.group}, set ${set.control}`;
  const control = Number(set.control);
  if (!/^\d+$/.test(set.control) || control < firstSet || control >= firstSet + sets) {
    return { status: 'error', message: `${where}: no such set in the interchange written (its sets are ${String(firstSet).padStart(4, '0')} to ${String(firstSet + sets - 1).padStart(4, '0')}); not matched` };
  }
  const state = setState(set.code);
  return { status: 'ok', message: `${where}: ${state === 'accepted' ? 'accepted by the partner' : `${state} by the partner: ${describeSetAck(set)}`}` };
}

function toSetAck(set: ReceivedSetAck): ExportSetAck {
  return { id: set.id, control: set.control, state: setState(set.code), code: set.code, reasons: set.reasons, errors: set.errors, text: describeSetAck(set) };
}

/**
 * Records each acknowledgement of the file against the export it names and lists every AK2 set as a row (`ok` once
 * matched and recorded, whatever the partner's verdict; `error` when it matches nothing written). A set the partner
 * rejected is logged and alerted, once per file; an overdue alert of the export is cleared.
 */
export async function recordReceivedAcks(
  journal: ReceivedAckJournal, fileId: number, reading: AckReading, partners: Readonly<Record<string, PartnerProfile>>, logger: Logger,
): Promise<void> {
  const items: NewItem[] = [];
  // One row per set: its AK2 (or the group's AK1, a stray set's ST) stands for the segments that follow it.
  const add = (lines: number[], docKey: string, status: 'ok' | 'error', message: string) => {
    items.push({ seq: items.length + 1, lines: lines.slice(0, 1), docKey, status, messages: [message] });
  };
  for (const ack of reading.acks.acks) {
    const partner = partnerOf(partners, { senderQualifier: ack.senderQualifier, sender: ack.sender, applicationSender: ack.applicationSender });
    const from = partner?.name ?? `${ack.senderQualifier.trim()}/${ack.sender.trim()}`;
    const unmatched = (why: string) => {
      logger.warn({ event: 'x12.ack-unmatched', partner: from, group: ack.group, interchange: ack.interchange, why }, 'a received acknowledgement matches no interchange written: reported, not applied');
      if (ack.sets.length === 0) add(ack.lines.slice(1), `group ${ack.group}`, 'error', `${ack.kind} from ${from} for group ${ack.group}: ${why}; not applied`);
      for (const set of ack.sets) add(set.lines, `group ${ack.group} set ${set.control}`, 'error', `${ack.kind} from ${from} for group ${ack.group}, set ${set.control}: ${why}; not applied`);
    };
    if (ack.refusals.length > 0) {
      unmatched(`the ${ack.kind} itself is refused by its envelope (${ack.refusals.join('; ')})`);
      continue;
    }
    const written = partner && /^\d{1,9}$/.test(ack.group) ? await journal.exportOfGroup(partner.name, Number(ack.group)) : undefined;
    if (!written) {
      unmatched(partner ? `no interchange written to ${partner.name} has group ${ack.group}` : `its sender ${from} is no partner profile, and only what the bridge wrote to a partner is acknowledged`);
      continue;
    }
    const matched: Matched = { exportId: written.exportId, fileName: (await journal.getExport(written.exportId)).fileName, partner: written.partner, group: written.group };
    const sets = ack.sets.map(toSetAck);
    const news = await journal.recordExportAck({
      exportId: written.exportId, fileId, kind: ack.kind, state: groupState(ack.code), code: ack.code, text: describeGroupAck(ack), sets,
    });
    const group = `export ${matched.exportId} (${matched.fileName}) to ${matched.partner}, group ${matched.group}`;
    if (ack.sets.length === 0) add(ack.lines.slice(1), `${matched.fileName} group ${matched.group}`, 'ok', `${group}: ${describeGroupAck(ack)}`);
    for (const set of ack.sets) {
      const row = setRow(matched, set, written.firstSet, written.sets);
      add(set.lines, `${matched.fileName} set ${set.control}`, row.status, row.message);
    }
    logger.info({ event: 'x12.ack-received', export: matched.exportId, partner: matched.partner, group: matched.group, code: ack.code }, `${ack.kind} received: ${describeGroupAck(ack)}`);
    if (news) await reportRejections(journal, matched, ack, logger);
    await clearOverdue(journal, matched.exportId, logger);
  }
  for (const other of reading.acks.others) {
    add(other.lines, `set ${other.control}`, 'error', `interchange ${other.interchange}, set ${other.control}: a ${other.id} set in a file of acknowledgements is not read; send it in a file of its own`);
  }
  for (let i = 0; i < items.length; i += 500) await journal.addItems(fileId, items.slice(i, i + 500));
}

/** Each set the partner rejected: a log event and a critical alert naming the export, partner, group, set and why. */
async function reportRejections(journal: ReceivedAckJournal, matched: Matched, ack: ReceivedGroupAck, logger: Logger): Promise<void> {
  const rejected = ack.sets.filter((s) => setState(s.code) === 'rejected');
  // A group rejected as a whole names no set, or names none rejected: the group is what was refused.
  const subjects = rejected.length > 0 || groupState(ack.code) !== 'rejected' ? rejected.map((s) => ({ set: s.control, why: describeSetAck(s) })) : [{ set: undefined, why: describeGroupAck(ack) }];
  for (const { set, why } of subjects) {
    const what = `export ${matched.exportId} (${matched.fileName}) to ${matched.partner}, group ${matched.group}${set === undefined ? '' : `, set ${set}`}`;
    const message = `${matched.partner} rejected ${what}: ${why}`;
    logger.warn({ event: 'x12.set-rejected', export: matched.exportId, file: matched.fileName, partner: matched.partner, group: matched.group, set, reason: why }, message);
    await journal.console.raiseAlert({ kind: SET_REJECTED, subject: `export:${matched.exportId}${set === undefined ? '' : `:set:${set}`}`, message });
  }
}

/** The acknowledgement came: the export's overdue alert, if open, is cleared (acknowledged by wisbridge). */
async function clearOverdue(journal: ReceivedAckJournal, exportId: number, logger: Logger): Promise<void> {
  const open = (await journal.console.listAlerts({ limit: OPEN_ALERTS })).open.filter((a) => a.kind === ACK_OVERDUE && a.subject === `export:${exportId}`);
  for (const alert of open) {
    if (await journal.console.acknowledgeAlert(alert.id, 'wisbridge (the acknowledgement arrived)')) {
      logger.info({ event: 'x12.ack-overdue-cleared', export: exportId }, 'overdue acknowledgement alert cleared: the 997/999 arrived');
    }
  }
}
