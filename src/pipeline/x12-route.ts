import type { Readable } from 'node:stream';
import type { InboundJob, X12Route } from '../config/schema.js';
import { partnerOf, type PartnerProfile } from '../config/partners.js';
import { WisbridgeError } from '../errors.js';
import type { Mapping, MappingSet } from '../mapping/index.js';
import { isX12, readEnvelopes, X12_SNIFF_BYTES, type Delimiters, type EnvelopeWatch, type InterchangeResult, type SetResult } from '../x12/index.js';

/** One interchange of a file as the routing pass read it: its verdicts, separators and sender's profile. */
export interface ReceivedInterchange {
  result: InterchangeResult;
  delimiters: Delimiters;
  /** The partner profile of its sender (by ISA05/06, else GS02), undefined when none is configured. */
  partner: { name: string; profile: PartnerProfile } | undefined;
}

/** The segments of a set by their number in the file (what the mapping's rows give as their lines): ST through SE. */
export interface SetLines {
  first: number;
  last: number;
}

/** An X12 file as routed: the mapping that reads it and every interchange received, for its acknowledgement. */
export interface X12Reading {
  mapping: Mapping;
  interchanges: ReceivedInterchange[];
  /** The lines of each set the envelopes list (weakly held: a set the validator only counts goes with its record). */
  setLines: WeakMap<SetResult, SetLines>;
}

/**
 * Follows the sets' lines as the segments pass: a set's verdict comes after its SE (or what replaced a missing one),
 * so the ranges wait in order for theirs. An ST outside any group gets no verdict of its own and no range.
 */
class SetLineTracker implements EnvelopeWatch {
  readonly lines = new WeakMap<SetResult, SetLines>();
  private line = 0;
  private inGroup = false;
  private open: SetLines | undefined;
  private readonly waiting: SetLines[] = [];

  segment(id: string): void {
    const line = ++this.line;
    switch (id) {
      case 'ISA': case 'GS': case 'GE': case 'IEA':
        this.inGroup = id === 'GS';
        this.open = undefined;
        return;
      case 'ST':
        this.open = this.inGroup ? { first: line, last: line } : undefined;
        if (this.open) this.waiting.push(this.open);
        return;
    }
    if (this.open) this.open.last = line;
    if (id === 'SE') this.open = undefined;
  }

  verdict(set: SetResult): void {
    const range = this.waiting.shift();
    if (range) this.lines.set(set, range);
  }
}

/** Whether the bytes start with an ISA (a UTF-8 byte order mark before it tolerated), whatever the file's name. */
export async function startsAsX12(open: () => Readable): Promise<boolean> {
  const stream = open();
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= X12_SNIFF_BYTES) break;
    }
  } finally {
    stream.destroy();
  }
  return isX12(Buffer.concat(chunks, length));
}

/** The route of one set: the one naming its sender's profile first, else one naming no partner. */
function routeOf(routes: readonly X12Route[], set: string, partner: string | undefined): X12Route | undefined {
  return routes.find((r) => r.transaction_set === set && r.partner !== undefined && r.partner === partner)
    ?? routes.find((r) => r.transaction_set === set && r.partner === undefined);
}

/**
 * Reads a file's envelopes once (segments let go as they pass) and picks the mapping of its sets by ST01 and sender:
 * the mapping routed for the most of them. A set no route takes, or routed to another mapping than the file's, is
 * marked `set-unsupported`: its acknowledgement refuses it (AK5 R, code 1) and the mapping reports it in the result
 * file. With no set routed at all, the job's first route reads the file, so every set is still reported and answered.
 */
export async function routeX12(job: InboundJob & { x12: X12Route[] }, mappings: MappingSet, partners: Readonly<Record<string, PartnerProfile>>, open: () => Readable, file: string): Promise<X12Reading> {
  const tracker = new SetLineTracker();
  const read = await readEnvelopes(open(), { file }, tracker);
  const interchanges: ReceivedInterchange[] = read.interchanges.map((result) => ({
    result, delimiters: read.delimiters.get(result.index)!,
    partner: partnerOf(partners, { senderQualifier: result.senderQualifier, sender: result.sender, applicationSender: result.groups[0]?.sender }),
  }));
  const votes = new Map<string, number>();
  for (const { result, partner } of interchanges) {
    for (const group of result.groups) {
      for (const set of group.sets) {
        const route = routeOf(job.x12, set.id, partner?.name);
        if (route) votes.set(route.mapping, (votes.get(route.mapping) ?? 0) + 1);
      }
    }
  }
  const chosen = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? job.x12[0].mapping;
  const mapping = mappings.get(chosen);
  if (mapping.direction !== 'inbound' || mapping.dialect.format !== 'x12') {
    throw new WisbridgeError('MAPPING_INVALID', `job ${job.name} routes X12 sets to mapping "${mapping.name}", which is not an inbound x12 mapping`);
  }
  for (const { result, partner } of interchanges) {
    for (const group of result.groups) {
      for (const set of group.sets) {
        const route = routeOf(job.x12, set.id, partner?.name);
        if (route?.mapping === chosen) continue;
        set.refusals.push({
          reason: 'set-unsupported',
          detail: route ? `a ${set.id} set is read by mapping ${route.mapping}, and this file by ${chosen}: send it in a file of its own` : `no mapping of job ${job.name} reads a ${set.id} set${partner ? ` from ${partner.name}` : ''}`,
        });
      }
    }
  }
  return { mapping, interchanges, setLines: tracker.lines };
}
