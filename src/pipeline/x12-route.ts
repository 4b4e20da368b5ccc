import type { Readable } from 'node:stream';
import type { InboundJob, X12Route } from '../config/schema.js';
import { partnerOf, type PartnerProfile } from '../config/partners.js';
import { WisbridgeError } from '../errors.js';
import type { Mapping, MappingSet, X12Share } from '../mapping/index.js';
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

/** One mapping's pass over an X12 file whose sets go to several: which sets it reads. */
export interface X12Pass {
  mapping: Mapping;
  /** Undefined when the file's sets all go to this one mapping. */
  share?: X12Share;
}

/** An X12 file as routed: the mappings that read it and every interchange received, for its acknowledgement. */
export interface X12Reading {
  /**
   * The mapping of the file's first routed set: the file's in the journal, and the one whose pass reports the
   * envelopes and the sets no route takes.
   */
  mapping: Mapping;
  /** One pass per mapping the sets are routed to, in the order of their first set in the file; `mapping`'s first. */
  passes: X12Pass[];
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

/**
 * Who sent an interchange, as the journal keys what it counts per partner (the control numbers of its replies, the
 * ISA13s received): its profile's name, else the ISA id it was sent from.
 */
export function senderKey(received: ReceivedInterchange): string {
  return received.partner?.name ?? `${received.result.senderQualifier.trim()}/${received.result.sender.trim()}`;
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
 * Reads a file's envelopes once (segments let go as they pass) and picks the mapping of each set by ST01 and sender
 * (routeOf). The file is then read once per mapping its sets go to (X12Pass), each pass reading its own sets. A set no
 * route takes is marked `set-unsupported`: its acknowledgement refuses it (AK5 R, code 1) and the first pass reports it
 * in the result file. With no set routed at all, the job's first route reads the file, so every set is still reported
 * and answered.
 */
export async function routeX12(job: InboundJob & { x12: X12Route[] }, mappings: MappingSet, partners: Readonly<Record<string, PartnerProfile>>, open: () => Readable, file: string): Promise<X12Reading> {
  const tracker = new SetLineTracker();
  const read = await readEnvelopes(open(), { file }, tracker);
  const interchanges: ReceivedInterchange[] = read.interchanges.map((result) => ({
    result, delimiters: read.delimiters.get(result.index)!,
    partner: partnerOf(partners, { senderQualifier: result.senderQualifier, sender: result.sender, applicationSender: result.groups[0]?.sender }),
  }));
  // Each interchange's ST01s by the mapping they go to, the mappings in the order of their first set.
  const owners = new Map<string, Map<number, Set<string>>>();
  for (const { result, partner } of interchanges) {
    for (const group of result.groups) {
      for (const set of group.sets) {
        const route = routeOf(job.x12, set.id, partner?.name);
        if (!route) {
          set.refusals.push({ reason: 'set-unsupported', detail: `no mapping of job ${job.name} reads a ${set.id} set${partner ? ` from ${partner.name}` : ''}` });
          continue;
        }
        let byInterchange = owners.get(route.mapping);
        if (!byInterchange) owners.set(route.mapping, (byInterchange = new Map()));
        let ids = byInterchange.get(result.index);
        if (!ids) byInterchange.set(result.index, (ids = new Set()));
        ids.add(set.id);
      }
    }
  }
  const names = owners.size > 0 ? [...owners.keys()] : [job.x12[0].mapping];
  const passes = names.map((name, k): X12Pass => {
    const mapping = mappings.get(name);
    if (mapping.direction !== 'inbound' || mapping.dialect.format !== 'x12') {
      throw new WisbridgeError('MAPPING_INVALID', `job ${job.name} routes X12 sets to mapping "${mapping.name}", which is not an inbound x12 mapping`);
    }
    if (names.length === 1) return { mapping };
    // The first pass reads every set but the others' (a set of a group too large to list all sets goes with it); the
    // others read their own.
    const ids = (of: readonly string[]) => {
      const byIndex: Record<number, string[]> = {};
      for (const owner of of) for (const [index, set] of owners.get(owner)!) (byIndex[index] ??= []).push(...set);
      return byIndex;
    };
    return { mapping, share: k === 0 ? { except: ids(names.slice(1)) } : { only: ids([name]) } };
  });
  return { mapping: passes[0].mapping, passes, interchanges, setLines: tracker.lines };
}
