// The formulas a player compares with the roll's own odds (issue "Odds people ask for"): up to
// COMPARED_MAX formulas, separated by `;`, checked as they are typed with the language itself,
// fetched in one request of POST /v1/stats/batch (docs/stats.md, "Several formulas at once") and
// drawn over the roll's bars (page/odds.ts) with this roll and every roll after. Answers are kept
// for the session: comparing a formula again, or rolling again, asks for nothing.
import { COMPARED_MAX, type OddsSeries, type OddsView } from './odds.js';
import type { StatsResponse } from './types.js';

export interface CompareElements {
  form: HTMLFormElement;
  input: HTMLInputElement;
  error: HTMLElement;
}

export interface CompareNeeds {
  /** The message the API would answer for a formula, or undefined when it parses. */
  problem: (formula: string) => string | undefined;
  /** What a refused request says on the page (a rate limit in plain words). */
  refusal: (response: Response) => Promise<string>;
}

/** The formulas written in the field: trimmed, the empty ones left out. */
export const comparedFormulas = (text: string): string[] =>
  text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');

export class CompareForm {
  private readonly known = new Map<string, StatsResponse>();
  /** The latest comparison asked: an answer for an earlier one arriving late is dropped. */
  private asked = 0;

  constructor(
    private readonly view: CompareElements,
    private readonly odds: OddsView,
    private readonly needs: CompareNeeds,
  ) {
    view.input.addEventListener('input', () => this.say(this.problemOf(comparedFormulas(view.input.value))));
    view.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.compare();
    });
  }

  private problemOf(formulas: readonly string[]): string | undefined {
    if (formulas.length > COMPARED_MAX)
      return `At most ${COMPARED_MAX} formulas can be compared with your roll; this has ${formulas.length}.`;
    for (const formula of formulas) {
      const problem = this.needs.problem(formula);
      if (problem !== undefined) return `${formula}: ${problem}`;
    }
    return undefined;
  }

  private say(problem: string | undefined): void {
    this.view.error.textContent = problem ?? '';
    this.view.input.setAttribute('aria-invalid', String(problem !== undefined));
  }

  /** Asks for the formulas not known yet, all in one batch request, then draws every one. */
  async compare(): Promise<void> {
    const asked = ++this.asked;
    const formulas = comparedFormulas(this.view.input.value);
    const problem = this.problemOf(formulas);
    this.say(problem);
    if (problem !== undefined) {
      this.view.input.focus();
      return;
    }
    const missing = [...new Set(formulas.filter((formula) => !this.known.has(formula)))];
    if (missing.length > 0) {
      const response = await fetch('/v1/stats/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ requests: missing.map((formula) => ({ formula })) }),
      });
      if (asked !== this.asked) return;
      if (!response.ok) {
        this.say(`No odds to compare: ${await this.needs.refusal(response)}`);
        return;
      }
      const { results } = (await response.json()) as { results: StatsResponse[] };
      if (asked !== this.asked) return;
      missing.forEach((formula, index) => {
        this.known.set(formula, results[index]!);
      });
    }
    const series: OddsSeries[] = formulas.map((formula) => ({
      stats: this.known.get(formula)!,
      label: formula,
    }));
    this.odds.compare(series);
    // For tests and tools: how many formulas are drawn over the roll's odds.
    document.body.dataset.compared = String(series.length);
  }
}
