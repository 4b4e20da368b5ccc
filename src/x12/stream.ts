import { WisbridgeError } from '../errors.js';
import { EnvelopeValidator, type EnvelopeEvent, type InterchangeResult, type SetResult } from './envelope.js';
import { REASONS, type Refusal } from './reasons.js';
import { SegmentReader, type ByteSource } from './reader.js';
import { describePlace, type Segment } from './segment.js';
import type { Delimiters } from './syntax.js';
import type { TokenizerOptions } from './tokenizer.js';

/** A segment as read, or an envelope's verdict, in file order (a set's verdict right after its SE). */
export type X12Event = { kind: 'segment'; segment: Segment } | EnvelopeEvent;

/** Reads an X12 file as segments and envelope verdicts, holding what SegmentReader and EnvelopeValidator hold. */
export async function* readX12(source: ByteSource | SegmentReader, options: TokenizerOptions = {}): AsyncGenerator<X12Event, void, undefined> {
  const reader = source instanceof SegmentReader ? source : new SegmentReader(source, options);
  const validator = new EnvelopeValidator();
  const events: EnvelopeEvent[] = [];
  for await (const batch of reader.batches()) {
    for (const segment of batch) {
      yield { kind: 'segment', segment };
      validator.push(segment, events);
      for (let i = 0; i < events.length; i++) yield events[i];
      events.length = 0;
    }
  }
  validator.end(events);
  yield* events;
}

/** What a pass over a file's envelopes found: each interchange's verdict, and the delimiters its ISA named. */
export interface EnvelopeReading {
  interchanges: InterchangeResult[];
  /** By InterchangeResult.index. */
  delimiters: Map<number, Delimiters>;
}

/**
 * Who follows a pass over the envelopes segment by segment: each segment's id (inside a set, '' for any but its SE),
 * then each set's verdict right after its SE.
 */
export interface EnvelopeWatch {
  segment(id: string): void;
  verdict(set: SetResult): void;
}

/**
 * The verdicts of every interchange of a file, its segments read and let go: a chunk's segments at once, the data
 * segments by their id alone (`envelopeOnly`), so the pass costs about half a full read.
 */
export async function readEnvelopes(source: ByteSource, options: TokenizerOptions = {}, watch?: EnvelopeWatch): Promise<EnvelopeReading> {
  const reader = new SegmentReader(source, { ...options, envelopeOnly: true });
  const validator = new EnvelopeValidator();
  const events: EnvelopeEvent[] = [];
  const reading: EnvelopeReading = { interchanges: [], delimiters: new Map() };
  const take = () => {
    for (const event of events) {
      if (event.kind === 'interchange') reading.interchanges.push(event.interchange);
      else if (event.kind === 'set') watch?.verdict(event.set);
    }
    events.length = 0;
  };
  for await (const batch of reader.batches()) {
    for (const segment of batch) {
      if (segment.index === 0 && segment.id === 'ISA') reading.delimiters.set(segment.envelopes.interchangeIndex, segment.delimiters);
      watch?.segment(segment.id);
      validator.push(segment, events);
      if (events.length > 0) take();
    }
  }
  validator.end(events);
  take();
  return reading;
}

/** The verdicts of every interchange of a file, its segments read and let go. */
export async function checkEnvelopes(source: ByteSource, options: TokenizerOptions = {}): Promise<InterchangeResult[]> {
  return (await readEnvelopes(source, options)).interchanges;
}

/** One X12_ENVELOPE error per refusal in an interchange and its groups and sets, each naming its place. */
export function envelopeErrors(interchange: InterchangeResult, file?: string): WisbridgeError<'X12_ENVELOPE'>[] {
  const errors: WisbridgeError<'X12_ENVELOPE'>[] = [];
  const add = (refusal: Refusal, group: string | undefined, set: string | undefined) => {
    const place = describePlace({ file, interchange: interchange.control, set });
    const where = group !== undefined && set === undefined ? `${place}, group ${group}` : place;
    const code = REASONS[refusal.reason].code;
    errors.push(new WisbridgeError('X12_ENVELOPE', `${where}: ${refusal.detail}; refused (${refusal.reason}${code === undefined ? '' : `, code ${code}`})`, {
      details: { interchange: interchange.control, group, set, reason: refusal.reason, ackCode: code },
    }));
  };
  for (const refusal of interchange.refusals) add(refusal, undefined, undefined);
  for (const group of interchange.groups) {
    for (const refusal of group.refusals) add(refusal, group.control, undefined);
    for (const set of group.sets) for (const refusal of set.refusals) add(refusal, group.control, set.control);
  }
  return errors;
}
