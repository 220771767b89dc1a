// The implementation version, read once from package.json (one source of truth for the health
// response, the index and the OpenAPI document). The path is the same from src/ and dist/.
import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;

export const PACKAGE_NAME: string = pkg.name;
export const VERSION: string = pkg.version;
