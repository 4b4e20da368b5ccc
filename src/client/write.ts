import type { z } from 'zod';
import { LIMITS, WRITES, endpoints, fastValidator } from '../contract/index.js';
import { WisbridgeError, callOutcomeOf, isWisbridgeError } from '../errors.js';
import { linkSignals } from './backoff.js';
import { deadlineOf, serviceMessage, type Core } from './core.js';
import { JsonText } from './transport.js';
import { verifyApplied } from './safety.js';
import type { BatchEndpointId, ItemOf, ResultOf, WriteOptions, WriteOutcome } from './types.js';
import { describeIssues, parseResponse } from './validate.js';

/** Statuses after which halving the batch can isolate the items at fault (nothing was applied). */
const BISECTABLE = new Set([400, 413, 422]);

interface Entry {
  index: number;
  key: number | string;
  body: unknown;
}

/**
 * Sends items in batches and returns one outcome per item, in input order. Fatal problems (authentication,
 * contract violation, service unavailable after retries, deadline, shutdown) are thrown as WisbridgeError
 * with `details.outcomes` (items decided so far, the batch in flight as uncertain when it may have applied)
 * and `details.notSent` (indexes never sent).
 */
export async function runWrite<K extends BatchEndpointId>(
  core: Core,
  endpoint: K,
  items: readonly ItemOf<K>[],
  options: WriteOptions = {},
): Promise<WriteOutcome<ResultOf<K>>[]> {
  const deadline = deadlineOf(core, options);
  const link = linkSignals([options.signal]);
  try {
    return await writeAll(core, endpoint, items, options, deadline, link.signal);
  } finally {
    link.release();
  }
}

/** The request body: the caller's JSON text when the batch is all the items in order, else serialized. */
function requestBody(key: string, batch: readonly Entry[], items: readonly unknown[], itemsJson: string | undefined): unknown {
  if (itemsJson !== undefined && batch.length === items.length && batch.every((e, i) => e.index === i)) {
    return new JsonText(`{${JSON.stringify(key)}:${itemsJson}}`);
  }
  return { [key]: batch.map((e) => e.body) };
}

async function writeAll<K extends BatchEndpointId>(
  core: Core,
  endpoint: K,
  items: readonly ItemOf<K>[],
  options: WriteOptions,
  deadline: number | undefined,
  signal: AbortSignal,
): Promise<WriteOutcome<ResultOf<K>>[]> {
  const def = endpoints[endpoint];
  const { policy, outcomeKey } = WRITES[endpoint];
  const batchSize = Math.min(LIMITS.maxItemsPerRequest, Math.max(1, Math.floor(options.batchSize ?? core.batchSize)));
  const outcomes: (WriteOutcome<ResultOf<K>> | undefined)[] = new Array(items.length);
  const entries: Entry[] = [];

  items.forEach((item, index) => {
    const key = outcomeKey(item) ?? index;
    if (options.validate === false) return entries.push({ index, key, body: item });
    const parsed = (def.item as z.ZodType).safeParse(item);
    if (parsed.success) entries.push({ index, key, body: parsed.data });
    else outcomes[index] = { key, index, ok: false, errors: describeIssues(parsed.error), returned: {} };
  });

  const decide = (e: Entry, o: Omit<WriteOutcome<ResultOf<K>>, 'key' | 'index'>) => {
    outcomes[e.index] = { key: e.key, index: e.index, ...o };
  };
  const uncertain = (batch: Entry[], message: string, repeated: boolean) => {
    core.logger.warn({ endpoint, items: batch.length, keys: batch.slice(0, 20).map((e) => e.key) }, 'write outcome unknown: items reported uncertain');
    for (const e of batch) decide(e, { ok: false, uncertain: true, errors: [message], returned: {}, ...(repeated ? { repeated } : {}) });
  };

  const onUnknown = async (batch: Entry[], error: WisbridgeError, sentAt: Date, repeated: boolean): Promise<void> => {
    let pending = batch;
    let note = error.message;
    if (policy.verify && options.verifyUncertain !== false) {
      const ids = batch.map((e) => e.key).filter((k): k is number => typeof k === 'number');
      let confirmed: Set<number> | undefined;
      try {
        confirmed = await verifyApplied(core, policy.verify, ids, sentAt, { signal, deadline });
      } catch (verifyError) {
        if (isWisbridgeError(verifyError, 'AUTHENTICATION') || isWisbridgeError(verifyError, 'ABORTED')) {
          uncertain(pending, error.message, repeated);
          throw verifyError;
        }
        note = `${error.message}; reading state back failed too`;
      }
      if (confirmed) {
        const shown = confirmed;
        for (const e of batch) if (shown.has(e.key as number)) decide(e, { ok: true, verified: true, errors: [], returned: {}, ...(repeated ? { repeated } : {}) });
        pending = batch.filter((e) => !shown.has(e.key as number));
        note = `${error.message}; reading state back did not confirm it`;
        // Only items the read showed as not applied are repeated; when the read failed nothing is known.
        if (policy.resendUnconfirmed && !repeated && pending.length > 0) return send(pending, true);
      }
    }
    uncertain(pending, note, repeated);
  };

  const send = async (batch: Entry[], repeated = false): Promise<void> => {
    await options.beforeSend?.({ endpoint, indexes: batch.map((e) => e.index), keys: batch.map((e) => e.key), repeated });
    const sentAt = new Date();
    let res;
    try {
      res = await core.transport.send({
        endpoint, method: def.method, path: def.path, retry: policy.retry,
        body: requestBody(def.bodyKey, batch, items, options.validate === false ? options.itemsJson : undefined), signal, deadline,
        beforeAttempt: options.beforeAttempt,
      });
    } catch (error) {
      if (isWisbridgeError(error, 'UNCERTAIN_OUTCOME')) return onUnknown(batch, error, sentAt, repeated);
      if (isWisbridgeError(error) && callOutcomeOf(error) === 'unknown') uncertain(batch, error.message, repeated);
      throw error;
    }
    if (res.status >= 200 && res.status < 300) {
      let answered: Record<string, unknown>[];
      try {
        // The compiled check: less time and garbage than the plain parse for a large answer
        // (docs/performance.md, "Settings chosen by measurement").
        const schema = def.response as z.ZodType<unknown>;
        const body = parseResponse(endpoint, schema, res.json, fastValidator(schema)) as Record<string, unknown>;
        answered = body[def.bodyKey] as Record<string, unknown>[];
        if (answered.length !== batch.length) {
          throw new WisbridgeError('CONTRACT_VIOLATION', `${endpoint}: the service answered ${answered.length} items for ${batch.length} sent`, { details: { endpoint } });
        }
      } catch (error) {
        uncertain(batch, error instanceof Error ? error.message : String(error), repeated);
        throw error;
      }
      // The hot path of every write (1,000 answers a request): one outcome object per item, no spreads.
      for (let i = 0; i < batch.length; i++) {
        const e = batch[i];
        const answer = answered[i];
        const list = Array.isArray(answer.errors) ? (answer.errors as string[]) : [];
        const returned: Record<string, unknown> = {};
        for (const k in answer) if (k !== 'errors') returned[k] = answer[k];
        const outcome: WriteOutcome<ResultOf<K>> = { key: e.key, index: e.index, ok: list.length === 0, errors: list, returned: returned as Partial<ResultOf<K>> };
        if (repeated) outcome.repeated = true;
        outcomes[e.index] = outcome;
      }
      return;
    }
    const message = serviceMessage(res.json, res.status);
    if (BISECTABLE.has(res.status) && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await send(batch.slice(0, half), repeated);
      await send(batch.slice(half), repeated);
      return;
    }
    const text = BISECTABLE.has(res.status) ? message : `HTTP ${res.status}: ${message}`;
    for (const e of batch) decide(e, { ok: false, errors: [text], returned: {}, ...(repeated ? { repeated } : {}) });
  };

  const batches: Entry[][] = [];
  for (let i = 0; i < entries.length; i += batchSize) batches.push(entries.slice(i, i + batchSize));
  let fatal: unknown;
  let nextBatch = 0;
  const worker = async () => {
    while (fatal === undefined && nextBatch < batches.length) {
      const batch = batches[nextBatch++];
      try {
        await send(batch);
      } catch (error) {
        fatal ??= error;
      }
    }
  };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));

  if (fatal !== undefined) {
    const decided = outcomes.filter((o): o is WriteOutcome<ResultOf<K>> => o !== undefined);
    const notSent = items.map((_, i) => i).filter((i) => outcomes[i] === undefined);
    if (isWisbridgeError(fatal)) {
      throw new WisbridgeError(fatal.code, fatal.message, { cause: fatal, details: { ...fatal.details, outcomes: decided, notSent } });
    }
    throw fatal;
  }
  return outcomes as WriteOutcome<ResultOf<K>>[];
}
