export { isX12, X12_SNIFF_BYTES, X12, X12_ENVELOPE, SYNTAXES, type Delimiters, type Envelope, type HeaderSyntax } from './syntax.js';
export { Segment, describePlace, placeIn, type Place, type SegmentPosition } from './segment.js';
export { SegmentTokenizer, MAX_SEGMENT_BYTES, type TokenizerOptions } from './tokenizer.js';
export { SegmentReader, segmentsOf, type ByteSource } from './reader.js';
export {
  EnvelopeValidator, MAX_LISTED_SETS, isAccepted, ruleOf,
  type ElementError, type EnvelopeEvent, type GroupResult, type InterchangeResult, type SegmentError, type SetResult,
} from './envelope.js';
export { REASONS, FUNCTIONAL_IDS, ackCodeOf, type Reason, type Refusal } from './reasons.js';
export { readX12, readEnvelopes, checkEnvelopes, envelopeErrors, type EnvelopeReading, type EnvelopeWatch, type X12Event } from './stream.js';
export {
  acknowledgementInterchange, addSegmentErrors, functionalAck, groupVerdict, interchangeAck, ackKindFor, CONVENTION_999,
  SEGMENT_HAS_ELEMENT_ERRORS, type AckControls, type AckKind,
} from './ack.js';
export {
  X12Writer, writeInterchange,
  type ElementData, type GroupHeader, type InterchangeHeader, type SegmentData, type SetData, type WriterSeparators,
} from './writer.js';
export {
  readReceivedAcks, startsWithAck, groupState, setState, ACK_SET_IDS,
  type AckState, type ReceivedAckFile, type ReceivedElementError, type ReceivedGroupAck, type ReceivedSegmentError, type ReceivedSetAck,
} from './ack-read.js';
export { describeGroupAck, describeSegmentError, describeSetAck } from './ack-codes.js';
