// The reference (docs/*.md) as HTML, rendered by markdown-it at build time (scripts/build-reference.ts)
// and served by fairdice under /docs/<name> (src/http/reference.ts). What changes on the way:
// - every heading gets GitHub's anchor as its id (github-slugger, the rules the repo's own links
//   `stats.md#cost-too_complex-and-caching` are written against, duplicates numbered -1, -2...);
// - a link to another doc (`stats.md#anchor`) becomes the served path (`stats#anchor`, relative
//   to /docs/<name>), and one that reads as the file's name (`[api.md](api.md)`) reads as its title; a link to a file of the source tree (`../src/limits.ts`), which a reader of a
//   hosted service cannot reach, becomes its text alone; links to other sites stay as written;
// - nothing needs an inline style (the served page's CSP allows none): a table column's
//   alignment is a class, and wide tables scroll in a focusable box of their own;
// - raw HTML in the markdown is shown as text, never passed through (markdown-it's `html: false`).
import GithubSlugger from 'github-slugger';
import markdownIt, { type MarkdownIt, type Token } from 'markdown-it';

/** Who a doc is for: a person using a fairdice service, or one running it. */
export type ReferenceGroup = 'use' | 'run';

/** The docs served, in the order the reference's contents list them, and who each is for. */
export const REFERENCE_DOCS: ReadonlyArray<{ name: string; group: ReferenceGroup }> = [
  { name: 'language', group: 'use' },
  { name: 'api', group: 'use' },
  { name: 'stats', group: 'use' },
  { name: 'trust', group: 'use' },
  { name: 'client', group: 'use' },
  { name: 'mcp', group: 'use' },
  { name: 'discord', group: 'use' },
  { name: 'operations', group: 'run' },
  { name: 'architecture', group: 'run' },
  { name: 'performance', group: 'run' },
];

export interface ReferenceHeading {
  level: number;
  id: string;
  text: string;
}

export interface ReferencePage {
  /** The doc's name: docs/<name>.md, served at /docs/<name>. */
  name: string;
  /** Its first heading's text. */
  title: string;
  group: ReferenceGroup;
  /** The rendered body. */
  html: string;
  headings: ReferenceHeading[];
}

/** What the build writes to dist/reference/reference.json. */
export interface BuiltReferenceFile {
  pages: ReferencePage[];
}

/** The plain text of an inline token's children, as GitHub slugs it (code spans by their content). */
function plainText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/** `stats.md#anchor` → `stats#anchor` for a served doc; undefined for anything else. */
function servedPath(href: string, served: ReadonlySet<string>): string | undefined {
  const match = /^(?:\.\/)?([a-z][\w-]*)\.md(#.*)?$/i.exec(href);
  if (match === null || !served.has(match[1]!)) return undefined;
  return `${match[1]}${match[2] ?? ''}`;
}

/** A link into the source tree (relative, not a served doc, not an anchor of this page). */
const sourceLink = (href: string): boolean => !/^(?:[a-z][a-z\d+.-]*:|\/|#)/i.test(href);

function markdownFor(
  served: ReadonlySet<string>,
  headings: ReferenceHeading[],
  titles: ReadonlyMap<string, string>,
): MarkdownIt {
  const md = markdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('fairdice_reference', (state) => {
    const slugger = new GithubSlugger();
    const tokens = state.tokens;
    tokens.forEach((token, index) => {
      if (token.type === 'heading_open') {
        const text = plainText(tokens[index + 1]);
        const id = slugger.slug(text);
        token.attrSet('id', id);
        headings.push({ level: Number(token.tag.slice(1)), id, text });
      }
      if (token.type === 'th_open' || token.type === 'td_open') {
        const align = /text-align:\s*(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
        if (align !== undefined) {
          token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
          token.attrJoin('class', `align-${align}`);
        }
      }
      if (token.type !== 'inline' || token.children === null) return;
      // Links unlinked, with their closing tokens (links do not nest, so the next close is theirs).
      let unlinking = false;
      token.children.forEach((child, at) => {
        if (child.type === 'link_open') {
          const href = String(child.attrGet('href') ?? '');
          const path = servedPath(href, served);
          if (path !== undefined) {
            child.attrSet('href', path);
            // A link that reads as the file's name (`api.md`) reads as the page's title.
            const text = token.children?.[at + 1];
            const title = titles.get(path.split('#')[0]!);
            if (text?.type === 'text' && title !== undefined && text.content === href) text.content = title;
          } else if (sourceLink(href)) {
            child.tag = 'span';
            child.attrs = [
              ['class', 'source-path'],
              ['title', `${href.replace(/^(?:\.\.\/)+/, '')}, in the fairdice source`],
            ];
            unlinking = true;
          }
        } else if (child.type === 'link_close' && unlinking) {
          child.tag = 'span';
          unlinking = false;
        }
      });
    });
  });
  // A wide table scrolls sideways in a box the keyboard can reach, never the whole page.
  md.renderer.rules.table_open = () =>
    '<div class="wide" tabindex="0" role="region" aria-label="Table (scrolls sideways)">\n<table>\n';
  md.renderer.rules.table_close = () => '</table>\n</div>\n';
  return md;
}

/** Renders the docs (name → markdown); every name of REFERENCE_DOCS must be given. */
export function renderReference(sources: ReadonlyMap<string, string>): BuiltReferenceFile {
  const served = new Set(REFERENCE_DOCS.map((doc) => doc.name));
  const render = (titles: ReadonlyMap<string, string>) =>
    REFERENCE_DOCS.map(({ name, group }) => {
      const markdown = sources.get(name);
      if (markdown === undefined) throw new Error(`docs/${name}.md is missing`);
      const headings: ReferenceHeading[] = [];
      const html = markdownFor(served, headings, titles).render(markdown);
      const title = headings[0]?.text;
      if (title === undefined) throw new Error(`docs/${name}.md has no heading`);
      return { name, title, group, html, headings };
    });
  // Twice: the first rendering finds each doc's title, which the links between docs then read as.
  const titles = new Map(render(new Map()).map((page) => [page.name, page.title]));
  return { pages: render(titles) };
}
