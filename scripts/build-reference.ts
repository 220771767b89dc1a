// Renders the reference (docs/*.md) for the service to serve under /docs/<name>: `npm run build`
// runs it (`build:reference`) and writes dist/reference/reference.json (each page's HTML, title and
// headings) and dist/reference/reference.css (its stylesheet, from page/reference.css).
// scripts/reference.ts says what changes on the way from markdown.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_DOCS, renderReference } from './reference.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'reference');
const sources = new Map(
  REFERENCE_DOCS.map(({ name }) => [name, readFileSync(join(root, 'docs', `${name}.md`), 'utf8')]),
);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'reference.json'), `${JSON.stringify(renderReference(sources))}\n`);
copyFileSync(join(root, 'page', 'reference.css'), join(out, 'reference.css'));
