// The signature check of Discord's requests, with node:crypto, against the reference
// implementation in Discord's own `discord-interactions` package: both accept what Discord signs
// and both refuse any change to the body, the timestamp, the signature or the key.
import { verifyKey } from 'discord-interactions';
import { describe, expect, it } from 'vitest';
import { discordPublicKey, signatureValid, signedHeaders, timestampFresh } from '../../src/discord/verify.js';
import { LIMITS } from '../../src/limits.js';
import { discordApp } from '../support/discord.js';

const app = discordApp();
const other = discordApp();
const key = discordPublicKey(app.publicKeyHex);

/** Our verdict and discord-interactions' on the same request. */
async function bothVerdicts(body: string, headers: Record<string, string>, publicKeyHex = app.publicKeyHex) {
  const signed = signedHeaders(headers);
  const ours =
    signed !== undefined && signatureValid(discordPublicKey(publicKeyHex), signed, Buffer.from(body));
  const theirs = await verifyKey(
    body,
    headers['x-signature-ed25519'] ?? '',
    headers['x-signature-timestamp'] ?? '',
    publicKeyHex,
  );
  return { ours, theirs };
}

describe('Discord request signatures', () => {
  const body = JSON.stringify({ type: 1, id: '1', application_id: '2' });

  it('accepts what Discord signs, as discord-interactions does', async () => {
    expect(await bothVerdicts(body, app.headers(body))).toEqual({ ours: true, theirs: true });
    const unicode = JSON.stringify({ note: 'lancer de dés ⚔ 🎲' });
    expect(await bothVerdicts(unicode, app.headers(unicode))).toEqual({ ours: true, theirs: true });
  });

  it('refuses a changed body, timestamp or signature, or another key, as discord-interactions does', async () => {
    const headers = app.headers(body);
    expect(await bothVerdicts(`${body} `, headers)).toEqual({ ours: false, theirs: false });
    const later = {
      ...headers,
      'x-signature-timestamp': String(Number(headers['x-signature-timestamp']) + 1),
    };
    expect(await bothVerdicts(body, later)).toEqual({ ours: false, theirs: false });
    const signature = headers['x-signature-ed25519']!;
    const flipped = {
      ...headers,
      'x-signature-ed25519': `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`,
    };
    expect(await bothVerdicts(body, flipped)).toEqual({ ours: false, theirs: false });
    expect(await bothVerdicts(body, headers, other.publicKeyHex)).toEqual({ ours: false, theirs: false });
    expect(await bothVerdicts(body, other.headers(body))).toEqual({ ours: false, theirs: false });
  });

  it('reads only well-formed headers', () => {
    const headers = app.headers(body);
    expect(signedHeaders(headers)).toEqual({
      signature: headers['x-signature-ed25519'],
      timestamp: headers['x-signature-timestamp'],
    });
    expect(signedHeaders({})).toBeUndefined();
    expect(signedHeaders({ ...headers, 'x-signature-ed25519': 'zz'.repeat(64) })).toBeUndefined();
    expect(signedHeaders({ ...headers, 'x-signature-ed25519': 'ab'.repeat(63) })).toBeUndefined();
    expect(signedHeaders({ ...headers, 'x-signature-timestamp': '17e8' })).toBeUndefined();
    expect(signedHeaders({ ...headers, 'x-signature-timestamp': ['1', '2'] })).toBeUndefined();
  });

  it('takes a timestamp up to 5 minutes old or 1 minute ahead', () => {
    const now = 1_750_000_000_000;
    const at = (seconds: number) => String(now / 1000 + seconds);
    expect(LIMITS.discordTimestampMaxAgeSeconds).toBe(300);
    expect(LIMITS.discordTimestampSkewSeconds).toBe(60);
    expect(timestampFresh(at(0), now)).toBe(true);
    expect(timestampFresh(at(-300), now)).toBe(true);
    expect(timestampFresh(at(-301), now)).toBe(false);
    expect(timestampFresh(at(60), now)).toBe(true);
    expect(timestampFresh(at(61), now)).toBe(false);
  });

  it('refuses a public key that is not 64 hex digits', () => {
    expect(() => discordPublicKey('ab'.repeat(31))).toThrow(/64 hexadecimal digits/);
    expect(() => discordPublicKey('g'.repeat(64))).toThrow(/64 hexadecimal digits/);
    expect(key.asymmetricKeyType).toBe('ed25519');
  });
});
