// "How lucky?" for a table (docs/trust.md#how-lucky-the-night-was): the service's report of a
// table's log, GET /v1/tables/{id}/report, shown as it answers it: its sentence, what it covered
// and the test it ran, the mean percentile per roller and for the table, and each roll's
// percentile (exact on hover), sealed rolls not rated until revealed.
import type { ReportEntry, TableReport } from './types.js';

export interface ReportView {
  /** Asks for the report of the table joined. */
  button: HTMLButtonElement;
  /** Where the report is drawn (its heading, then the report), hidden until asked. */
  target: HTMLElement;
  body: HTMLElement;
  status: HTMLElement;
}

const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string | undefined,
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  node.append(...children);
  return node;
};

/** A percentile (a mid-P in [0, 1]) as read: `82.5`, never 0 nor 100 for one that is neither. */
export function percentileText(midP: number): string {
  const value = midP * 100;
  if (value > 0 && value < 0.1) return '< 0.1';
  if (value < 100 && value > 99.9) return '> 99.9';
  return value.toFixed(1);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export class TableReportView {
  private table: string | undefined;
  /** The latest request: an answer for an earlier table, or an earlier click, arriving late is dropped. */
  private asked = 0;

  constructor(private readonly view: ReportView) {
    view.button.addEventListener('click', () => {
      void this.load();
    });
  }

  /** A table was joined: its report is asked for anew. */
  follow(table: string): void {
    this.table = table;
    this.asked++;
    this.view.target.hidden = true;
    this.view.body.replaceChildren();
    this.view.status.textContent = '';
    this.view.button.hidden = false;
  }

  async load(): Promise<void> {
    const table = this.table;
    if (table === undefined) return;
    const asked = ++this.asked;
    this.view.button.disabled = true;
    this.view.status.textContent = 'Reading the log and weighing every roll…';
    try {
      const response = await fetch(`/v1/tables/${encodeURIComponent(table)}/report`, {
        headers: { accept: 'application/json' },
      });
      const body = (await response.json().catch(() => ({}))) as
        | TableReport
        | { error?: { message?: string } };
      if (asked !== this.asked) return;
      if (!response.ok || !('test' in body)) {
        const message = 'error' in body ? body.error?.message : undefined;
        this.view.status.textContent = `No report: ${message ?? `HTTP ${response.status}`}`;
        return;
      }
      this.view.status.textContent = '';
      this.show(body);
    } catch (error) {
      if (asked === this.asked) this.view.status.textContent = `No report: ${(error as Error).message}`;
    } finally {
      if (asked === this.asked) this.view.button.disabled = false;
    }
  }

  private show(report: TableReport): void {
    const { covered, test, overall } = report;
    const verdict = el('p', 'verdict', test.sentence);
    verdict.dataset.verdict = test.verdict;
    const parts = [
      `Entries ${covered.from} to ${covered.to}: ${plural(covered.rolls, 'roll')}, ${covered.rated} rated`,
    ];
    if (covered.sealed > 0) parts.push(`${covered.sealed} sealed (rated once revealed)`);
    if (covered.notRated > 0) parts.push(`${covered.notRated} not rated`);
    const coverage = el('p', 'hint coverage', `${parts.join(', ')}.`);
    if (covered.from > 1)
      coverage.append(
        ` The report reads at most the latest ${plural(covered.to - covered.from + 1, 'entry', 'entries')}.`,
      );
    // The sentence names the test and its numbers; the coverage line says where it is explained.
    coverage.append(' ', link('/docs/trust#how-lucky-the-night-was', 'How the report works'));
    const mean = el(
      'p',
      'overall',
      overall.meanMidP === null
        ? 'No rated roll yet.'
        : `Mean percentile of the table: ${percentileText(overall.meanMidP)} over ${plural(overall.rated, 'rated roll')} (50 is what fair dice give on average).`,
    );
    const rollers = el('ul', 'report-rollers');
    for (const roller of report.byRoller) {
      const item = el(
        'li',
        undefined,
        el('span', roller.by === null ? 'by nobody' : 'by', roller.by ?? 'Unnamed rolls'),
        `: mean percentile ${percentileText(roller.meanMidP)} over ${plural(roller.rated, 'roll')}`,
      );
      item.dataset.by = roller.by ?? '';
      item.dataset.mean = String(roller.meanMidP);
      rollers.append(item);
    }
    const rolls = el('ol', 'report-rolls');
    for (const entry of report.rolls) rolls.append(rollItem(entry));
    const heading = (text: string) => el('h4', undefined, text);
    this.view.body.replaceChildren(
      verdict,
      mean,
      coverage,
      ...(report.byRoller.length > 0 ? [heading('By roller'), rollers] : []),
      ...(report.rolls.length > 0 ? [heading('Roll by roll'), rolls] : []),
    );
    this.view.target.dataset.entries = String(report.head.entries);
    this.view.target.hidden = false;
  }
}

function link(href: string, text: string): HTMLAnchorElement {
  const a = el('a', undefined, text);
  a.href = href;
  return a;
}

/** One roll: `#3 Ana 1d20+5 = 18 · percentile 82.5`; sealed or not rated, why. */
function rollItem(entry: ReportEntry): HTMLLIElement {
  const item = el('li', 'report-roll', el('span', 'seq', `#${entry.seq}`));
  item.dataset.seq = String(entry.seq);
  item.dataset.status = entry.status;
  if (entry.by !== undefined) item.append(el('span', 'by', entry.by));
  item.append(
    el('code', 'what', entry.total === undefined ? entry.formula : `${entry.formula} = ${entry.total}`),
  );
  if (entry.status === 'rated' && entry.midP !== undefined) {
    const percentile = el('span', 'percentile', `percentile ${percentileText(entry.midP)}`);
    item.dataset.midP = String(entry.midP);
    if (entry.midPExact !== undefined) percentile.title = `exactly ${entry.midPExact} (mid-P)`;
    item.append(percentile);
  } else if (entry.status === 'sealed') {
    item.append(el('span', 'hint', 'sealed: rated once revealed'));
  } else {
    item.append(el('span', 'hint', `not rated: ${entry.reason ?? 'no reason given'}`));
  }
  if (entry.revealedIn !== undefined) item.append(el('span', 'hint', `revealed in #${entry.revealedIn}`));
  return item;
}
