import type { ReceivedGroupAck, ReceivedSegmentError, ReceivedSetAck } from './ack-read.js';

/*
 * What the codes of a received 997/999 mean (X12 element dictionary: 718 AK501, 716 AK905, 720 AK304, 723 AK403),
 * for the reason texts of the result file, the log and the alerts. A code not listed is shown as it is.
 */

const SET_CODES: Record<string, string> = {
  1: 'transaction set not supported', 2: 'transaction set trailer missing', 3: 'control number in header and trailer do not match',
  4: 'number of included segments does not match actual count', 5: 'one or more segments in error', 6: 'missing or invalid transaction set identifier',
  7: 'missing or invalid transaction set control number', 18: 'transaction set not in functional group', 23: 'transaction set control number not unique within the functional group',
  I5: 'implementation one or more segments in error', I6: 'implementation convention not supported',
};

const GROUP_CODES: Record<string, string> = {
  1: 'functional group not supported', 2: 'functional group version not supported', 3: 'functional group trailer missing',
  4: 'group control number in the header and trailer do not agree', 5: 'number of included transaction sets does not match actual count',
  6: 'group control number violates syntax', 19: 'functional group control number not unique within interchange',
};

const SEGMENT_CODES: Record<string, string> = {
  1: 'unrecognized segment id', 2: 'unexpected segment', 3: 'mandatory segment missing', 4: 'loop occurs over maximum times',
  5: 'segment exceeds maximum use', 6: 'segment not in defined transaction set', 7: 'segment not in proper sequence', 8: 'segment has data element errors',
};

const ELEMENT_CODES: Record<string, string> = {
  1: 'mandatory data element missing', 2: 'conditional required data element missing', 3: 'too many data elements', 4: 'data element too short',
  5: 'data element too long', 6: 'invalid character in data element', 7: 'invalid code value', 8: 'invalid date', 9: 'invalid time',
  10: 'exclusion condition violated', 12: 'too many repetitions', 13: 'too many components',
};

const VERDICTS: Record<string, string> = { A: 'accepted', E: 'accepted with errors', P: 'partially accepted', R: 'rejected', M: 'rejected, message authentication code failed', W: 'rejected, assurance failed validity tests', X: 'rejected, content after decryption could not be analyzed' };

const named = (table: Record<string, string>, code: string) => (table[code] === undefined ? `code ${code}` : `${table[code]} (${code})`);
const pad2 = (n: number) => String(n).padStart(2, '0');

/** One segment in error as a person reads it: `segment 7 (W01), element 05: invalid code value (7) "SKU-X"`. */
export function describeSegmentError(error: ReceivedSegmentError): string {
  const where = `segment ${error.position} (${error.segmentId})${error.loop ? ` in loop ${error.loop}` : ''}`;
  if (error.elements.length === 0) return `${where}: ${named(SEGMENT_CODES, error.code)}`;
  return error.elements.map((e) => {
    const element = `element ${pad2(e.element)}${e.component === undefined ? '' : `, component ${pad2(e.component)}`}`;
    return `${where}, ${element}: ${named(ELEMENT_CODES, e.code)}${e.copy === undefined ? '' : ` "${e.copy}"`}`;
  }).join('; ');
}

/** Why the partner rejected (or accepted with errors) a set: its AK5 verdict and codes, then its segments in error. */
export function describeSetAck(set: ReceivedSetAck): string {
  const verdict = `AK5 ${set.code || '(none)'}: ${VERDICTS[set.code] ?? 'unknown verdict'}`;
  const reasons = set.reasons.map((c) => named(SET_CODES, c));
  const errors = set.errors.map(describeSegmentError);
  return [verdict + (reasons.length ? `, ${reasons.join(', ')}` : ''), ...errors].join('; ');
}

/** The group's verdict: `AK9 P: partially accepted, 2 of 3 sets accepted`, with its own codes. */
export function describeGroupAck(ack: ReceivedGroupAck): string {
  const counts = ack.received === undefined || ack.accepted === undefined ? '' : `, ${ack.accepted} of ${ack.received} sets accepted`;
  const reasons = ack.reasons.map((c) => named(GROUP_CODES, c));
  return `AK9 ${ack.code || '(none)'}: ${VERDICTS[ack.code] ?? 'unknown verdict'}${counts}${reasons.length ? `; ${reasons.join(', ')}` : ''}`;
}
