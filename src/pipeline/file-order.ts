import type { Mapping } from '../mapping/index.js';

/**
 * Where a file stands in the order rules of a job's files (docs/pipeline.md, "Order of files"):
 * - `lane`: the mapping's name when it says `ordered: true`: its files one at a time, in name order;
 * - `family` and `stage`: the document family (`customerShipments`, …) and the step of a document's life the file
 *   feeds. A file waits for the files of its family at an earlier stage waiting with it: the service refuses an
 *   acknowledgement or a picking status of a shipment already shipped (contract: acknowledge needs an assigned
 *   shipment; change-status refuses a shipped one), so they go first.
 */
export interface FilePlace {
  lane?: string;
  family?: string;
  stage: number;
}

/** Acknowledge, then picking status, then everything else (ship, receive, failed). */
const STAGES: Record<string, number> = { acknowledge: 0, changeStatus: 1 };
export const LAST_STAGE = 2;

/** A file no mapping claims (it is rejected on its own): bound by no rule. */
export const UNPLACED: FilePlace = { stage: LAST_STAGE };

export function filePlace(mapping: Mapping | undefined): FilePlace {
  if (!mapping || mapping.direction !== 'inbound') return UNPLACED;
  const dot = mapping.document.indexOf('.');
  const family = mapping.document.slice(0, dot);
  const stage = STAGES[mapping.document.slice(dot + 1)] ?? LAST_STAGE;
  return { ...(mapping.definition.ordered ? { lane: mapping.name } : {}), family, stage };
}

/** Whether `later` must wait for `earlier` (both waiting or one running), the name order of a lane aside. */
export function mustFollow(later: FilePlace, earlier: FilePlace): boolean {
  if (later.lane !== undefined && later.lane === earlier.lane) return true;
  return later.family !== undefined && later.family === earlier.family && earlier.stage < later.stage;
}

/** Whether some file may have to follow this one: an ordered mapping's, or an acknowledgement or picking status. */
export function bindsOthers(place: FilePlace): boolean {
  return place.lane !== undefined || (place.family !== undefined && place.stage < LAST_STAGE);
}
