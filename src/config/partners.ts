import { z } from 'zod';
import { isRecord } from '../util/schema-keys.js';
import type { WriterSeparators } from '../x12/index.js';

// X12 trading partners: who sends and receives which interchanges, under which ids and separators. Read by the
// inbound side (which partner sent a file, where its 997/999 goes) and by the outbound writers (940, 943). One
// profile serves both directions: `them` is ISA05/06 of what they send and ISA07/08 of what they receive.

/** An ISA id: its qualifier (ISA05/07) and the id, at most 15 characters (the writer pads it to 15). */
export const isaIdSchema = z.strictObject({
  qualifier: z.string().regex(/^[A-Z0-9]{2}$/, { error: 'two characters, e.g. ZZ (mutually defined), 01 (DUNS), 12 (phone)' })
    .describe('ISA05/ISA07 interchange id qualifier, e.g. ZZ'),
  id: z.string().min(1).max(15, { error: 'an ISA id has at most 15 characters (ISA06/ISA08 are padded to 15)' })
    .refine((id) => id === id.trim(), { error: 'no leading or trailing spaces: the ISA pads the id itself' })
    .describe('ISA06/ISA08 interchange id, at most 15 characters (padded with spaces to 15 when written)'),
});

/** Characters an X12 separator may be: printable ASCII, not a letter, digit or space (docs/x12.md). */
const separator = z.string().length(1, { error: 'one character' })
  .regex(/^[!-/:-@[-`{-~]$/, { error: 'a printable character that is not a letter, digit or space' });

export const separatorsSchema = z.strictObject({
  element: separator.default('*').describe('element separator (ISA\'s 4th character)'),
  component: separator.default('>').describe('component separator (ISA16)'),
  segment: separator.default('~').describe('segment terminator'),
  repetition: separator.default('^').describe('repetition separator (ISA11, from version 00402 on)'),
  line_break: z.boolean().default(true).describe('a line feed after each terminator (for people reading the file; X12 readers skip it)'),
}).superRefine((s, ctx) => {
  const seen = new Map<string, string>();
  for (const key of ['element', 'component', 'segment', 'repetition'] as const) {
    const other = seen.get(s[key]);
    if (other !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `"${s[key]}" is already the ${other} separator: the four separators differ` });
    seen.set(s[key], key);
  }
});

const DURATION = /^([1-9]\d*)\s*([mhd])$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `ack_expected_within` in milliseconds; undefined when the profile sets none. */
export function ackExpectedWithinMs(profile: PartnerProfile): number | undefined {
  const m = profile.ack_expected_within === undefined ? null : DURATION.exec(profile.ack_expected_within);
  return m ? Number(m[1]) * UNIT_MS[m[2]] : undefined;
}

export const X12_VERSIONS = ['004010', '005010'] as const;

export const partnerSchema = z.strictObject({
  them: isaIdSchema.describe('the partner\'s ISA id: ISA05/06 of what it sends, ISA07/08 of what it receives'),
  us: isaIdSchema.describe('our ISA id towards this partner: ISA07/08 of what it sends, ISA05/06 of what we send'),
  application_code: z.string().min(2).max(15).optional()
    .describe('the partner\'s GS application code (GS02 of what it sends, GS03 of what we send); its ISA id when absent'),
  our_application_code: z.string().min(2).max(15).optional()
    .describe('our GS application code (GS03 of what it sends, GS02 of what we send); our ISA id when absent'),
  version: z.enum(X12_VERSIONS).default('004010').describe('GS08 of what we send (ISA12 00401 or 00501); 005010 groups are acknowledged with a 999'),
  separators: separatorsSchema.default({ element: '*', component: '>', segment: '~', repetition: '^', line_break: true })
    .describe('separators of what we send (what the partner sends is read with its own ISA\'s)'),
  usage: z.enum(['P', 'T']).default('P').describe('ISA15 of what we send: P production, T test'),
  acknowledgements: z.boolean().default(true)
    .describe('answer each interchange received from this partner with a 997 (999 for 005010 groups) and, where the interchange is refused, a TA1, written to the outbox'),
  ack_expected_within: z.string().regex(DURATION, { error: 'a duration in minutes, hours or days, e.g. 30m, 4h or 1d' }).optional()
    .describe('raise an alert when no 997/999 from this partner acknowledged an interchange we wrote to it within this time (e.g. 4h); no such alert when absent'),
}).superRefine((p, ctx) => {
  // Run beside the other problems of the profile (when: below), so its fields may be malformed here.
  const given: Record<string, unknown> = isRecord(p.separators) ? p.separators : {};
  const seps = (['element', 'component', 'segment', 'repetition'] as const).map((k) => given[k]).filter((s): s is string => typeof s === 'string' && s.length === 1);
  const fields: Array<[string[], unknown]> = [
    [['them', 'id'], isRecord(p.them) ? p.them.id : undefined], [['us', 'id'], isRecord(p.us) ? p.us.id : undefined],
    [['application_code'], p.application_code], [['our_application_code'], p.our_application_code],
  ];
  for (const [path, value] of fields) {
    const held = typeof value === 'string' ? seps.find((s) => value.includes(s)) : undefined;
    if (held !== undefined) ctx.addIssue({ code: 'custom', path, message: `"${value as string}" holds the separator "${held}", which X12 cannot escape` });
  }
}, { when: () => true }).describe('An X12 trading partner (docs/x12.md, "Partner profiles").');

export type PartnerProfile = z.output<typeof partnerSchema>;

export const partnersSchema = z.record(z.string().min(1), partnerSchema)
  .describe('X12 trading partners by name (docs/x12.md, "Partner profiles"); without a profile, X12 from any sender is read and acknowledged to the sender its ISA names');

/** What names the sender of a received interchange and group: ISA05/06 and GS02. */
export interface SenderIds {
  senderQualifier: string;
  sender: string;
  /** GS02 of the interchange's first group, when it has one. */
  applicationSender?: string;
}

/**
 * The profile that sent an interchange: the one whose ISA id is ISA05/06 (the id compared without its padding), else
 * the one whose application code is GS02. Undefined: no profile, the sender is whoever its ISA names.
 */
export function partnerOf(partners: Readonly<Record<string, PartnerProfile>>, ids: SenderIds): { name: string; profile: PartnerProfile } | undefined {
  const entries = Object.entries(partners);
  const byIsa = entries.find(([, p]) => p.them.qualifier === ids.senderQualifier.trim() && p.them.id === ids.sender.trim());
  const hit = byIsa ?? (ids.applicationSender === undefined ? undefined : entries.find(([, p]) => (p.application_code ?? p.them.id) === ids.applicationSender!.trim()));
  return hit === undefined ? undefined : { name: hit[0], profile: hit[1] };
}

/** The separators the writer takes, from a profile's. */
export function writerSeparatorsOf(profile: PartnerProfile): WriterSeparators {
  const s = profile.separators;
  return { element: s.element, component: s.component, segment: s.segment, repetition: s.repetition, ...(s.line_break ? { lineBreak: '\n' } : {}) };
}

/** ISA12 of a GS08 version: 004010 → 00401. */
export function interchangeVersionOf(version: string): string {
  return version.slice(0, 5);
}
