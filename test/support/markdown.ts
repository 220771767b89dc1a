// Reading the docs as data: their headings and the anchors GitHub gives them (links and code
// comments that cite a section must find it), and their tables (docs/language.md's `example` and
// `refused` columns are formulas that must parse, or be refused).

/**
 * The headings of `markdown` outside code blocks: their text without backticks (`titles`) and
 * GitHub's anchor of each (`anchors`: lowercase, punctuation dropped, spaces to hyphens).
 */
export function headingsOf(markdown: string): { anchors: Set<string>; titles: Set<string> } {
  const titles = (markdown.replace(/```[\s\S]*?```/g, '').match(/^#{1,6} .+$/gm) ?? []).map((line) =>
    line.replace(/^#+ /, '').trim(),
  );
  const anchors = titles.map((title) =>
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  );
  return { anchors: new Set(anchors), titles: new Set(titles.map((title) => title.replace(/`/g, ''))) };
}

/** The backticked spans of the cells under each header called `name`, in every table of `markdown`. */
export function tableColumn(markdown: string, name: string): string[] {
  const spans: string[] = [];
  let index = -1;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      index = -1;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (index === -1) {
      index = cells.indexOf(name);
      if (index === -1) index = -2; // a table without that column
      continue;
    }
    if (index < 0 || /^-+$/.test(cells[index] ?? '')) continue;
    spans.push(...[...(cells[index] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string));
  }
  return spans;
}
