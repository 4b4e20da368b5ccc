import type { FileJournal } from './file-endings.js';
import { senderKey, type X12Reading } from './x12-route.js';

/**
 * A sender sends an interchange once (its ISA13, X12's duplicate rule): one that another file brought before is
 * refused whole (TA1 R, code 025) before any row of it is read. A partner that resends an interchange under new bytes
 * (a new date in its ISA) would otherwise have its rows applied a second time: the checksum tells only the same bytes.
 * Only an interchange its envelope accepts is recorded, so a corrected resend of a refused one is read. Within one
 * file the envelope validator refuses a repeated ISA13 (`interchange-duplicate` too). A later run of the same file
 * finds the interchanges its own.
 */
export async function refuseRepeatedInterchanges(journal: Pick<FileJournal, 'recordReceivedInterchange' | 'getFile'>, fileId: number, reading: X12Reading): Promise<void> {
  for (const received of reading.interchanges) {
    const { result } = received;
    if (result.refusals.length > 0) continue;
    const sender = senderKey(received);
    const holder = await journal.recordReceivedInterchange(fileId, sender, result.control);
    if (holder === fileId) continue;
    const before = await journal.getFile(holder);
    result.refusals.push({
      reason: 'interchange-duplicate',
      detail: `${sender} sent it before, in ${before.name} (file ${holder}, claimed ${before.claimedAt}); a resend carries a new ISA13`,
    });
  }
}
