import type { BatchEndpointId } from '../client/index.js';
import { uncertainHint, writeModule } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import type { ItemOutcome } from '../journal/index.js';
import { storeOutcomes, toOutcome } from './outcomes.js';
import type { SenderContext } from './types.js';
import { requestSentAt, resendUntouched } from './untouched.js';
import { writeBodies } from './write.js';

/**
 * A request left `sent` by a crash (or a lost answer): reconciled per endpoint policy before the file goes on.
 * Safe to repeat (change-status, failed): sent again. Ship / receive / acknowledge: read back; confirmed items
 * are ok; unconfirmed acknowledgements are sent again (harmless), unconfirmed ship / receive stay uncertain.
 * Adjustments and cycle counts are never repeated: uncertain, with what to check.
 */
export async function reconcileSentRequest(ctx: SenderContext, requestId: number, endpoint: string): Promise<void> {
  const { journal } = ctx;
  const items = await journal.requestItems(requestId);
  const bodies = items.map((i) => (i.body === null ? {} : (JSON.parse(i.body) as Record<string, unknown>)));
  const uncertain = (i: number, why: string): ItemOutcome => ({
    seq: items[i].seq, status: 'uncertain', messages: [why], hint: uncertainHint(endpoint, items[i].docKey ?? '', bodies[i]),
  });
  const interrupted = 'the bridge stopped while this request was in flight; its outcome is unknown';
  const policy = writeModule(endpoint)?.policy;
  if (!policy) {
    await journal.completeRequest(requestId, items.map((_, i) => uncertain(i, interrupted)));
    return;
  }
  const outcomes = new Array<ItemOutcome | undefined>(items.length);
  let resend: number[] = [];
  if (policy.retry === 'repeatable') {
    resend = items.map((_, i) => i);
  } else if (policy.verify) {
    const ids = bodies.map((b) => b.id).filter((id): id is number => typeof id === 'number');
    const confirmed = await ctx.client.verify(endpoint as BatchEndpointId, ids, await requestSentAt(journal, requestId), { signal: ctx.lease?.signal });
    items.forEach((item, i) => {
      if (confirmed.has(bodies[i].id as number)) outcomes[i] = { seq: item.seq, status: 'ok', result: { id: bodies[i].id, verified: 'read back from the service' } };
      else if (policy.resendUnconfirmed) resend.push(i);
      else outcomes[i] = uncertain(i, `${interrupted}; reading the state back did not confirm it`);
    });
  } else {
    items.forEach((_, i) => (outcomes[i] = uncertain(i, `${interrupted}; ${endpoint} is never sent twice`)));
  }
  if (resend.length > 0) {
    ctx.stats.requests++;
    const results = await writeBodies(ctx, endpoint, resend.map((i) => bodies[i]), { batchSize: resend.length });
    results.forEach((o, j) => {
      const i = resend[j];
      outcomes[i] = toOutcome(items[i].seq, o, endpoint, items[i].docKey ?? '', bodies[i]);
    });
  }
  if (outcomes.some((o) => o === undefined)) throw new WisbridgeError('JOURNAL_STATE', `request ${requestId}: an item was left undecided`);
  const final = outcomes as ItemOutcome[];
  if (final.some((o) => o.status === 'uncertain')) {
    await resendUntouched(ctx, requestId, endpoint, final, bodies, items.map((i) => i.docKey ?? ''));
  }
  await storeOutcomes(ctx, requestId, endpoint, bodies, final);
  ctx.logger.info({ requestId, endpoint, items: items.length, uncertain: final.filter((o) => o.status === 'uncertain').length }, 'reconciled a request left in flight by an earlier run');
}
