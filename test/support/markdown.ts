// Reading the docs' tables as data: tests check that what a table says holds (docs/language.md's
// `example` and `refused` columns are formulas that must parse, or be refused).

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
