// Where `fairdice mcp` keeps its tables, receipts and signing key (docs/mcp.md, "The local
// store"). A desktop AI client starts the command in a working directory of its own choosing
// (often `/` or the client's install folder), so the service's default DATA_DIR, `./data`, would
// land somewhere unpredictable and often unwritable: without DATA_DIR the command uses the
// user's data directory. Without SIGNING_KEY_FILE it keeps a key of its own there, made on first
// start, so receipts and table logs still verify after the client restarts it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The name of the command's directory inside the user's data directory. */
export const LOCAL_DIR_NAME = 'fairdice';

/** The signing key's file inside the data directory when SIGNING_KEY_FILE is not set. */
export const LOCAL_KEY_FILE = 'signing-key.pem';

const set = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

/**
 * DATA_DIR when set; else `$XDG_DATA_HOME/fairdice` (an absolute XDG_DATA_HOME only, as the XDG
 * specification has it); else the platform's per-user data directory: `~/.local/share/fairdice`
 * on Linux and other Unixes, `~/Library/Application Support/fairdice` on macOS,
 * `%LOCALAPPDATA%\fairdice` on Windows.
 */
export function localDataDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const dataDir = set(env.DATA_DIR);
  if (dataDir !== undefined) return dataDir;
  const xdg = set(env.XDG_DATA_HOME);
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, LOCAL_DIR_NAME);
  if (platform === 'win32') {
    return join(set(env.LOCALAPPDATA) ?? join(home, 'AppData', 'Local'), LOCAL_DIR_NAME);
  }
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', LOCAL_DIR_NAME);
  return join(home, '.local', 'share', LOCAL_DIR_NAME);
}

/**
 * The data directory's own signing key, made now (an Ed25519 PKCS#8 PEM readable by its owner
 * only) if it does not exist yet. `created` says whether this call made it.
 */
export function localSigningKey(dataDir: string): { file: string; created: boolean } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCAL_KEY_FILE);
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  try {
    // `wx`: never overwrite a key that exists, even one written by another process meanwhile.
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
    return { file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { file, created: false };
    throw error;
  }
}
