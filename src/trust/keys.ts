// The service's signing key (node:crypto, server only): loaded from SIGNING_KEY_FILE or generated
// at start, plus the retired public keys still published so old receipts keep verifying
// (docs/trust.md, "Keys"). The private key never leaves this module's KeyObject.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { jwkThumbprint } from '@fairdice/client/verify';
import type { Ed25519Jwk, Jwks } from './receipt.js';

export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

export interface SigningKeys {
  /** The current key's RFC 7638 thumbprint. */
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** Current key first, then the retired ones: what /.well-known/jwks.json serves. */
  readonly jwks: Jwks;
  /** True when no SIGNING_KEY_FILE was given: receipts will not verify after a restart. */
  readonly generated: boolean;
}

export interface KeySources {
  /** PKCS#8 PEM file holding an Ed25519 private key, readable by its owner only. */
  keyFile?: string | undefined;
  /** A JWKS file ({"keys": [...]}) of retired Ed25519 public keys. */
  retiredKeysFile?: string | undefined;
}

async function publicJwk(key: KeyObject): Promise<Ed25519Jwk> {
  const { x } = createPublicKey(key).export({ format: 'jwk' });
  if (typeof x !== 'string') throw new SigningKeyError('the key has no Ed25519 public part');
  const jwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, x };
  return { ...jwk, kid: await jwkThumbprint(jwk), alg: 'EdDSA', use: 'sig' };
}

function readPrivateKey(file: string): KeyObject {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    throw new SigningKeyError(`SIGNING_KEY_FILE ${file} cannot be read`);
  }
  // Group or others may read it: refuse, as ssh does, rather than sign with a key others may hold.
  if ((mode & 0o077) !== 0) {
    throw new SigningKeyError(
      `SIGNING_KEY_FILE ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: readFileSync(file), format: 'pem' });
  } catch {
    throw new SigningKeyError(`SIGNING_KEY_FILE ${file} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SigningKeyError(`SIGNING_KEY_FILE ${file} holds a ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

async function readRetiredKeys(file: string): Promise<Ed25519Jwk[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new SigningKeyError(`SIGNING_RETIRED_KEYS_FILE ${file} is not a readable JSON file`);
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys))
    throw new SigningKeyError(`SIGNING_RETIRED_KEYS_FILE ${file} has no "keys" array`);
  const retired: Ed25519Jwk[] = [];
  for (const [index, key] of keys.entries()) {
    const { kty, crv, x, kid } = (key ?? {}) as Record<string, unknown>;
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(x))
      throw new SigningKeyError(
        `SIGNING_RETIRED_KEYS_FILE ${file}: keys[${index}] is not an Ed25519 public key`,
      );
    const jwk = { kty, crv, x } as const;
    const thumbprint = await jwkThumbprint(jwk);
    if (kid !== undefined && kid !== thumbprint)
      throw new SigningKeyError(
        `SIGNING_RETIRED_KEYS_FILE ${file}: keys[${index}].kid is not the key's RFC 7638 thumbprint`,
      );
    retired.push({ ...jwk, kid: thumbprint, alg: 'EdDSA', use: 'sig' });
  }
  return retired;
}

/** Loads (or, without a key file, generates) the signing key and the published key set. */
export async function loadSigningKeys(sources: KeySources = {}): Promise<SigningKeys> {
  const generated = sources.keyFile === undefined;
  const privateKey = generated ? generateKeyPairSync('ed25519').privateKey : readPrivateKey(sources.keyFile!);
  const current = await publicJwk(privateKey);
  const retired = sources.retiredKeysFile === undefined ? [] : await readRetiredKeys(sources.retiredKeysFile);
  const keys = [current, ...retired.filter((key) => key.kid !== current.kid)];
  return { kid: current.kid, privateKey, jwks: { keys }, generated };
}
