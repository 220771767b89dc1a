// UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter, then random bits, so
// receipt ids sort by time and stay unique within a millisecond. Twenty lines of our own rather
// than a dependency: `crypto.randomUUID` makes only v4, and the `uuid` package brings v1-v8
// for this one function.
import { randomFillSync } from 'node:crypto';

let lastMs = -1;
let counter = 0;

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** A new UUIDv7; ids made by this process are strictly increasing, also within one millisecond. */
export function uuidv7(now: number = Date.now()): string {
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter++;
    // 4096 ids in one millisecond: borrow the next millisecond rather than repeat an id.
    if (counter > 0xfff) {
      ms++;
      counter = 0;
    }
  } else {
    counter = 0;
  }
  lastMs = ms;
  const bytes = randomFillSync(new Uint8Array(16));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A UUIDv7 as uuidv7() writes it: lower-case hex, version 7, the RFC 9562 variant. */
export const UUIDV7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The millisecond a UUIDv7 was made at, or undefined when `id` is not a UUIDv7. */
export function uuidv7Time(id: string): number | undefined {
  if (!UUIDV7_PATTERN.test(id)) return undefined;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
