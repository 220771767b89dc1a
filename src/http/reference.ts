// The reference (docs/*.md) as pages a reader of a hosted service can open: `npm run build` renders
// the markdown into dist/reference/ (scripts/build-reference.ts); this module reads that and lays
// each doc out as a whole page (the site's links, the contents of the reference, the doc), which
// src/http/docs.ts serves at /docs/<name> beside the interactive reference at /docs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` writes the reference: dist/reference, from src/http or dist/http alike. */
export const REFERENCE_DIR = fileURLToPath(new URL('../../dist/reference/', import.meta.url));

/** One rendered doc, as scripts/reference.ts writes it. */
export interface ReferenceDoc {
  readonly name: string;
  readonly title: string;
  /** Who it is for: a person using a service (`use`) or one running it (`run`). */
  readonly group: 'use' | 'run';
  readonly html: string;
  readonly headings: ReadonlyArray<{ level: number; id: string; text: string }>;
}

export interface BuiltReference {
  readonly docs: readonly ReferenceDoc[];
  /** The stylesheet of every page of the reference. */
  readonly stylesheet: Buffer;
}

/** The built reference, or undefined when `npm run build` has not built it into `dir`. */
export function loadReference(dir: string = REFERENCE_DIR): BuiltReference | undefined {
  try {
    const { pages } = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as {
      pages: ReferenceDoc[];
    };
    return { docs: pages, stylesheet: readFileSync(join(dir, 'reference.css')) };
  } catch {
    return undefined;
  }
}

/** Text safe to put between tags or in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const GROUP_WORDS = { use: 'Using fairdice', run: 'Running it' } as const;

export interface ReferenceLayout {
  /** Where the interactive API reference is (`/docs`); the docs are at `${docsPath}/<name>`. */
  readonly docsPath: string;
  /** The stylesheet's URL. */
  readonly stylesheetUrl: string;
}

/**
 * Each doc as a whole page (name → HTML): the site's links (the roller at `/`, the interactive
 * reference), the reference's contents with the doc shown marked, and the doc itself.
 */
export function referencePages(reference: BuiltReference, layout: ReferenceLayout): Map<string, string> {
  const { docsPath, stylesheetUrl } = layout;
  const contents = (current: string): string =>
    (['use', 'run'] as const)
      .map((group) => {
        const links = reference.docs
          .filter((doc) => doc.group === group)
          .map(
            (doc) =>
              `<a href="${docsPath}/${doc.name}"${doc.name === current ? ' aria-current="page"' : ''}>${escapeHtml(doc.title)}</a>`,
          )
          .join('\n');
        return `<li><span class="group">${GROUP_WORDS[group]}:</span>\n${links}</li>`;
      })
      .join('\n');
  return new Map(
    reference.docs.map((doc) => [
      doc.name,
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)} · fairdice reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${stylesheetUrl}">
</head>
<body>
<a class="skip" href="#content">Skip to the text</a>
<header class="top">
<div class="inner">
<p class="site"><strong>fairdice</strong> <a href="/">Roll dice</a> <a href="${docsPath}">API reference (try it)</a></p>
<nav aria-label="The reference">
<ul class="contents">
${contents(doc.name)}
</ul>
</nav>
</div>
</header>
<main id="content">
<article>
${doc.html}</article>
</main>
</body>
</html>
`,
    ]),
  );
}
