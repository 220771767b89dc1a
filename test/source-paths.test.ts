// Every repo path named in a comment or a doc must exist, and every heading it cites must be real:
// a stale path in a comment sends the next reader to a file that is not there.
//
// Where it looks: the comments of the source files under src/, scripts/, page/, packages/*/src,
// test/, grammar/ and examples/*/src (TypeScript and JavaScript through the TypeScript parser, so
// a string or a regular expression is never read as a comment; the grammar's `//` lines; shell
// `#` lines; CSS and HTML comments), and the whole text of docs/*.md and of the READMEs.
//
// What is a repo path: a token that starts with one of the repo's top folders (TOP_FOLDERS below:
// src/, test/, scripts/, docs/, page/, packages/, grammar/, examples/) where no letter, digit, `.`,
// `/`, `@`, `-` or `:` comes right before it (so a URL, a `../relative` link, which
// test/docs.test.ts checks, and an npm name such as `@fairdice/client` are not read), then goes on
// with letters, digits, `_`, `.`, `-` and `/` and ends on a letter, a digit or `/` (a sentence's
// full stop is not part of it; `:12` after it is a line number). Not checked: a token followed by
// a glob or placeholder character (`*`, `{`, `<`, `$`, `[`), as in `packages/*/src`; and a path in
// a folder that .gitignore names (build output such as dist/ or the generated parser).
//
// What is checked: the path exists (a file, or a folder when it ends with `/`); after a `.md`
// path, `#anchor` must be one of that file's heading anchors (GitHub's rules) and `"Heading"` one
// of its headings.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { headingsOf } from './support/markdown.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOP_FOLDERS = ['src', 'test', 'scripts', 'docs', 'page', 'packages', 'grammar', 'examples'];

/** .gitignore's patterns, as the predicate "this repo-relative path is ignored". */
function gitignored(): (path: string) => boolean {
  const patterns = readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return (path) => {
    const segments = path.replace(/\/$/, '').split('/');
    return patterns.some((pattern) => {
      const bare = pattern.replace(/\/$/, '');
      if (bare.includes('/')) return path === bare || path.startsWith(`${bare.replace(/^\//, '')}/`);
      const glob = new RegExp(`^${bare.replace(/[.+^$()|\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      return segments.some((segment) => glob.test(segment));
    });
  };
}
const ignored = gitignored();

/** Every file under `dir` (repo-relative), leaving out what .gitignore names. */
function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (ignored(path)) return [];
    return statSync(join(ROOT, path)).isDirectory() ? walk(path) : [path];
  });
}

/** The comments of a TypeScript or JavaScript file, each with its offset in the text. */
function scriptComments(path: string, text: string): Array<{ at: number; text: string }> {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, string>();
  const collect = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...seen].map(([at, comment]) => ({ at, text: comment }));
}

/** Matches of `pattern` in `text`, each with its offset. */
function pieces(text: string, pattern: RegExp): Array<{ at: number; text: string }> {
  return [...text.matchAll(pattern)].map((match) => ({ at: match.index, text: match[0] }));
}

/** The parts of a file this test reads: its comments, or the whole of a markdown file. */
function commentsOf(path: string, text: string): Array<{ at: number; text: string }> {
  switch (extname(path)) {
    case '.ts':
    case '.tsx':
    case '.js':
    case '.mjs':
      return scriptComments(path, text);
    case '.peggy':
      return pieces(text, /^[ \t]*\/\/.*$/gm);
    case '.sh':
      return pieces(text, /^[ \t]*#.*$/gm);
    case '.css':
      return pieces(text, /\/\*[\s\S]*?\*\//g);
    case '.html':
      return pieces(text, /<!--[\s\S]*?-->/g);
    case '.md':
      return [{ at: 0, text }];
    default:
      return [];
  }
}

interface PathCitation {
  /** Offset in the text given to pathsIn. */
  readonly at: number;
  readonly path: string;
  /** `#anchor` after a `.md` path. */
  readonly anchor?: string;
  /** `"Heading"` after a `.md` path. */
  readonly heading?: string;
}

/** A top folder where no path character, `@` or `:` comes right before it, and the longest run of path characters. */
const PATH = new RegExp(`(?<![\\w.@:/-])(?:${TOP_FOLDERS.join('|')})/[\\w.\\-/]*`, 'g');

/** The repo paths a piece of text names (see the rules at the top of this file). */
function pathsIn(text: string): PathCitation[] {
  return [...text.matchAll(PATH)].flatMap((match): PathCitation[] => {
    const after = match.index + match[0].length;
    if (/[*{<$[]/.test(text[after] ?? '')) return []; // a glob or a placeholder
    const path = match[0].replace(/[.-]+$/, ''); // a full stop or a dash after it is prose
    if (!path.endsWith('.md') || path !== match[0]) return [{ at: match.index, path }];
    const rest = text.slice(after);
    const anchor = /^#([\w-]+)/.exec(rest)?.[1];
    const heading = /^\s+"([^"\n]+)"/.exec(rest)?.[1];
    return [
      {
        at: match.index,
        path,
        ...(anchor !== undefined ? { anchor } : {}),
        ...(heading !== undefined ? { heading } : {}),
      },
    ];
  });
}

/** What is wrong with one citation, or undefined. */
function problemOf(citation: PathCitation): string | undefined {
  const { path, anchor, heading } = citation;
  if (ignored(path)) return undefined;
  const file = join(ROOT, path.replace(/\/$/, ''));
  if (!existsSync(file)) return 'no such file';
  if (path.endsWith('/') && !statSync(file).isDirectory()) return 'not a folder';
  if (anchor === undefined && heading === undefined) return undefined;
  const { anchors, titles } = headingsOf(readFileSync(file, 'utf8'));
  if (anchor !== undefined && !anchors.has(anchor)) return `no heading with the anchor #${anchor}`;
  if (heading !== undefined && !titles.has(heading)) return `no heading "${heading}"`;
  return undefined;
}

const SOURCES = [
  ...['src', 'scripts', 'page', 'test', 'grammar'].flatMap(walk),
  ...readdirSync(join(ROOT, 'packages')).flatMap((name) => walk(`packages/${name}/src`)),
  ...readdirSync(join(ROOT, 'examples')).flatMap((name) => walk(`examples/${name}/src`)),
];
const DOCUMENTS = [
  'README.md',
  ...walk('docs').filter((path) => path.endsWith('.md')),
  ...['packages', 'examples'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .map((name) => `${dir}/${name}/README.md`)
      .filter((path) => existsSync(join(ROOT, path))),
  ),
];

describe('repo paths named in comments and docs', () => {
  it.each([...SOURCES, ...DOCUMENTS].map((path) => [path]))('every path %s names exists', (path) => {
    const text = readFileSync(join(ROOT, path), 'utf8');
    const problems = commentsOf(path, text).flatMap((comment) =>
      pathsIn(comment.text).flatMap((citation) => {
        const problem = problemOf(citation);
        if (problem === undefined) return [];
        const line = text.slice(0, comment.at + citation.at).split('\n').length;
        const cited = `${citation.path}${citation.anchor ? `#${citation.anchor}` : ''}${citation.heading ? ` "${citation.heading}"` : ''}`;
        return [`${path}:${line}: ${cited}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('reads enough to mean something (the check is not vacuous)', () => {
    expect(SOURCES.length).toBeGreaterThan(150);
    expect(SOURCES).toContain('packages/client/src/index.ts');
    expect(SOURCES).toContain('grammar/dice.peggy');
    expect(SOURCES.some((path) => path.startsWith('src/formula/generated/'))).toBe(false);
    expect(DOCUMENTS).toContain('docs/performance.md');
    const cited = [...SOURCES, ...DOCUMENTS].flatMap((path) => {
      const text = readFileSync(join(ROOT, path), 'utf8');
      return commentsOf(path, text).flatMap((comment) => pathsIn(comment.text));
    });
    expect(cited.length).toBeGreaterThan(300);
    expect(cited.filter((citation) => citation.anchor !== undefined).length).toBeGreaterThan(20);
    for (const folder of TOP_FOLDERS) expect(existsSync(join(ROOT, folder)), folder).toBe(true);
  });
});

describe('the rules', () => {
  const paths = (text: string) =>
    pathsIn(text).map(({ path, anchor, heading }) => ({ path, anchor, heading }));

  it('reads a path, its anchor or quoted heading, and stops before punctuation and line numbers', () => {
    expect(paths('see src/stats/pool.ts.')).toEqual([{ path: 'src/stats/pool.ts' }]);
    expect(paths('(docs/trust.md#keys) and `test/support/redis.ts`')).toEqual([
      { path: 'docs/trust.md', anchor: 'keys' },
      { path: 'test/support/redis.ts' },
    ]);
    expect(paths('docs/language.md "Limits": more')).toEqual([
      { path: 'docs/language.md', heading: 'Limits' },
    ]);
    expect(paths('at stats/distribution.ts:212 and src/roll/prepare.ts:15-23')).toEqual([
      { path: 'src/roll/prepare.ts' },
    ]);
    expect(paths('everything under src/http/, then')).toEqual([{ path: 'src/http/' }]);
  });

  it('leaves URLs, relative links, npm names, globs and placeholders alone', () => {
    expect(paths('https://github.com/fairdice/fairdice/src/x.ts')).toEqual([]);
    expect(paths('[a](../src/config.ts) ./src/x.ts')).toEqual([]);
    expect(paths('@fairdice/client and @fastify/rate-limit/store/LocalStore.js, my-src/x')).toEqual([]);
    expect(paths('packages/*/src, test/**/*.test.ts, docs/{a,b}.md, page/<file>')).toEqual([]);
    expect(paths(`src/${'$'}{name}.ts`)).toEqual([]);
    expect(paths('test/http/*.test.ts')).toEqual([]);
  });

  it('finds comments, never strings or regular expressions, in code', () => {
    const code = [
      "const a = '// src/not/a/comment.ts';",
      'const b = /\\/\\/ src\\/x/;',
      'const c = `/* src/none.ts */`; // src/one.ts',
      '/** docs/api.md#anchor */',
    ].join('\n');
    const found = commentsOf('x.ts', code).flatMap((comment) => pathsIn(comment.text).map((p) => p.path));
    expect(found.sort()).toEqual(['docs/api.md', 'src/one.ts']);
    expect(commentsOf('x.sh', 'echo src/a.ts # src/b.ts\n# src/c.ts').map((c) => c.text)).toEqual([
      '# src/c.ts',
    ]);
    expect(commentsOf('x.css', 'a { b: c } /* src/d.ts */').map((c) => c.text)).toEqual(['/* src/d.ts */']);
  });

  it('flags what is wrong', () => {
    expect(problemOf({ at: 0, path: 'src/stats/pool.ts' })).toBe('no such file');
    expect(problemOf({ at: 0, path: 'src/stats/' })).toBeUndefined();
    expect(problemOf({ at: 0, path: 'src/config.ts/' })).toBe('not a folder');
    expect(problemOf({ at: 0, path: 'docs/performance.md', anchor: 'targets' })).toBeUndefined();
    expect(problemOf({ at: 0, path: 'docs/performance.md', anchor: 'the-http-request-path' })).toMatch(
      /anchor/,
    );
    expect(problemOf({ at: 0, path: 'docs/language.md', heading: 'No such heading' })).toMatch(/no heading/);
    expect(problemOf({ at: 0, path: 'src/formula/generated/parser.js' })).toBeUndefined();
    expect(problemOf({ at: 0, path: 'packages/client/dist/index.js' })).toBeUndefined();
  });
});
