import type { Acknowledgement, ExportConfirmations } from '../journal/index.js';
import type { Logger } from '../log.js';

/**
 * Export policy `acknowledge: on-confirmation`: the WMS confirms a work list with an acknowledgement file,
 * which this pipeline sends. Once the service accepted an acknowledgement, the exported record waiting for that
 * confirmation is recorded as acknowledged (in one transaction, joining the caller's when `journal` is its `tx`), so
 * the exporter never acknowledges it again.
 * `workType` is the endpoint family (`customerShipments`, ...), the same names as the export jobs' work types.
 */
export async function recordConfirmations(journal: ExportConfirmations, workType: string, acks: ReadonlyArray<{ id: number; acknowledgedAt: string | null }>, logger: Logger): Promise<number> {
  if (acks.length === 0) return 0;
  return journal.transaction(async (tx) => {
    const { confirmed } = await tx.confirmRecords(workType, acks.map((a) => a.id));
    if (confirmed.length === 0) return 0;
    const at = new Map(acks.map((a) => [a.id, a.acknowledgedAt]));
    const wanted = new Set(confirmed);
    const byExport = new Map<number, Acknowledgement[]>();
    for (const record of await tx.pendingAcknowledgements(workType)) {
      if (!wanted.has(record.id)) continue;
      wanted.delete(record.id);
      let list = byExport.get(record.exportId);
      if (!list) byExport.set(record.exportId, (list = []));
      list.push({ id: record.id, status: 'acknowledged', acknowledgedAt: at.get(record.id) ?? null });
    }
    for (const [exportId, list] of byExport) await tx.recordAcknowledgements(exportId, list);
    logger.info({ workType, confirmed: confirmed.length }, 'acknowledgements from the WMS recorded for the exported work lists');
    return confirmed.length;
  });
}
