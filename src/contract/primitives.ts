import { z } from 'zod';

/** Upper bounds the emulator enforces and the client batches under (the interface does not state them). */
export const LIMITS = {
  pageSize: 100,
  maxItemsPerRequest: 1000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxCodeLength: 255,
  maxTextLength: 4000,
} as const;

/** `date`: YYYY-MM-DD that is a real calendar date (zod's iso.date checks month lengths and leap years). */
export const isoDate = z.iso.date();
/** `datetime` in responses: ISO 8601 with a UTC offset (`Z` or `±hh:mm`). */
export const isoDateTime = z.iso.datetime({ offset: true });
/** Datetime accepted in filters: with an offset, or without one (read as UTC). */
export const isoDateTimeFilter = z.union([z.iso.datetime({ offset: true }), z.iso.datetime({ local: true })]);
/** Decimal carried as a string, e.g. "12.50". */
export const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal written as a string');

export const id = z.number().int().positive();
/** A short code or name sent by a client. */
export const code = z.string().min(1).max(LIMITS.maxCodeLength);
/** A free text sent by a client (error texts, reasons). */
export const text = z.string().max(LIMITS.maxTextLength);
/** Quantity of a ship item or consumable: a number, at least 1. */
export const shipQuantity = z.number().min(1);
/** Received / damaged quantity: a non-negative number. */
export const receiptQuantity = z.number().nonnegative();

export const warehouseRef = z.looseObject({ id: z.number().int(), code: z.string(), name: z.string() });
export const address = z.looseObject({
  address1: z.string(),
  city: z.string(),
  zip: z.string(),
  country_code: z.string(),
  subdivision_code: z.string(),
});
export const customer = z.looseObject({ name: z.string(), email: z.string(), code: z.string() });
export const productRef = z.looseObject({ code: z.string(), name: z.string() });

/** Per-item `errors`: message strings, or null / empty when the item succeeded. */
export const itemErrors = z.array(z.string()).nullable();

/** The JSON body of every 4xx/5xx answer of the emulator (the interface leaves it "not shown"). */
export const errorBody = z.looseObject({
  error: z.looseObject({
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
    issues: z.array(z.looseObject({ path: z.string(), message: z.string() })).optional(),
  }),
});

export type IsoDate = z.infer<typeof isoDate>;
export type IsoDateTime = z.infer<typeof isoDateTime>;
export type WarehouseRef = z.infer<typeof warehouseRef>;
export type Address = z.infer<typeof address>;
export type Customer = z.infer<typeof customer>;
export type ProductRef = z.infer<typeof productRef>;
export type ErrorBody = z.infer<typeof errorBody>;
