/** Which envelope a broken rule refuses: the interchange (answered by a TA1), a group (AK9) or one set (AK5/IK5). */
export type EnvelopeLevel = 'interchange' | 'group' | 'set';

interface ReasonEntry {
  level: EnvelopeLevel;
  /** TA105 for an interchange, AK905 for a group, AK502 / IK502 for a set; none where the standard has no code. */
  code: string | undefined;
  rule: string;
}

/** Every envelope rule the validator checks, with what it refuses and the acknowledgement code it answers with. */
export const REASONS = {
  'isa-length': { level: 'interchange', code: '022', rule: 'the ISA segment is 106 characters, its terminator included' },
  'interchange-control-invalid': { level: 'interchange', code: '018', rule: 'ISA13 is nine digits' },
  'interchange-control-mismatch': { level: 'interchange', code: '001', rule: 'IEA02 repeats ISA13' },
  'interchange-group-count': { level: 'interchange', code: '021', rule: 'IEA01 counts the groups of the interchange' },
  'interchange-trailer-missing': { level: 'interchange', code: '023', rule: 'the interchange ends with its IEA before the next ISA or the end of the file' },
  'interchange-duplicate': { level: 'interchange', code: '025', rule: 'one sender does not repeat an ISA13, within a file or of an interchange received before' },
  'interchange-content': { level: 'interchange', code: '024', rule: 'between the ISA and the IEA only groups (GS … GE)' },
  'group-control-invalid': { level: 'group', code: '6', rule: 'GS06 is one to nine digits' },
  'group-control-mismatch': { level: 'group', code: '4', rule: 'GE02 repeats GS06' },
  'group-set-count': { level: 'group', code: '5', rule: 'GE01 counts the transaction sets of the group' },
  'group-trailer-missing': { level: 'group', code: '3', rule: 'the group ends with its GE before the next GS or the IEA' },
  'group-duplicate': { level: 'group', code: '19', rule: 'GS06 is unique within the interchange' },
  'group-content': { level: 'group', code: undefined, rule: 'between the GS and the GE only transaction sets (ST … SE)' },
  'set-trailer-missing': { level: 'set', code: '2', rule: 'the set ends with its SE before the next ST, the GE or the IEA' },
  'set-control-mismatch': { level: 'set', code: '3', rule: 'SE02 repeats ST02' },
  'set-segment-count': { level: 'set', code: '4', rule: 'SE01 counts the segments from the ST through the SE' },
  'set-data': { level: 'set', code: '5', rule: 'the set\'s segments have no errors (AK3/AK4 name them)' },
  'set-id-mismatch': { level: 'set', code: '6', rule: 'ST01 is a transaction set of the group\'s functional identifier (GS01)' },
  'set-control-invalid': { level: 'set', code: '7', rule: 'ST02 is four to nine characters' },
  'set-duplicate': { level: 'set', code: '23', rule: 'ST02 is unique within the group' },
  'set-unsupported': { level: 'set', code: '1', rule: 'a mapping reads the set (its ST01, from its sender): added by the reader that routes it' },
  'set-convention-mismatch': { level: 'set', code: 'I6', rule: 'ST03, where given, repeats the group\'s version GS08' },
} as const satisfies Record<string, ReasonEntry>;

export type Reason = keyof typeof REASONS;

/** A broken rule, with what was found. */
export interface Refusal {
  reason: Reason;
  detail: string;
}

/** The acknowledgement code of a refusal (TA105, AK905 or AK502). */
export function ackCodeOf(reason: Reason): string | undefined {
  return REASONS[reason].code;
}

/**
 * The functional identifier (GS01) of each transaction set the bridge meets, to check that a set belongs to its group.
 * A set not listed here is not checked.
 */
export const FUNCTIONAL_IDS: Readonly<Record<string, string>> = {
  '846': 'IB',
  '850': 'PO',
  '856': 'SH',
  '940': 'OW',
  '943': 'AR',
  '944': 'RE',
  '945': 'SW',
  '947': 'AW',
  '997': 'FA',
  '999': 'FA',
};
