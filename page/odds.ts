// The exact distribution of /v1/stats as a histogram that reads at a glance (docs/api.md, "The
// page at /"): the axis covers where the mass is (at least 99.9 % of it) and says what lies beyond
// with its exact probability; "exactly", "at least" or "at most" each total; the rolled total
// marked. The bars are one tab stop: arrows, Home and End move along them.
import { chanceOf, oddsWindow, percentText as percent } from '../packages/client/src/describe.js';
import type { StatsOutcome, StatsResponse } from './types.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 180;
const AXIS = 34;
const TOP = 24;
export type OddsMode = 'exactly' | 'atLeast' | 'atMost';

const MODE_WORDS: Record<OddsMode, string> = { exactly: 'exactly', atLeast: 'at least', atMost: 'at most' };

function svgNode<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function beyondText(
  stats: StatsResponse,
  from: number,
  to: number,
  side: 'below' | 'above',
  rolled: number,
): string {
  const { probability: p, exact } = chanceOf(stats, from, to);
  const edge = side === 'below' ? stats.outcomes[to + 1]!.total : stats.outcomes[from - 1]!.total;
  const range = side === 'below' ? `below ${edge}` : `above ${edge}`;
  const low = stats.outcomes[from]!.total;
  const high = stats.outcomes[to]!.total;
  const here = rolled >= low && rolled <= high ? ` (your roll, ${rolled}, is one of them)` : '';
  return `Totals ${range} (${low} to ${high}) are not drawn: together ${percent(p)}${exact === undefined ? '' : `, exactly ${exact}`}${here}.`;
}

/**
 * The totals to label on the axis (indices into `totals`, the totals drawn): the ends, the rolled
 * total, and round numbers between that do not crowd them.
 */
function ticksOf(totals: readonly number[], rolled: number, width: number): number[] {
  const last = totals.length - 1;
  const most = Math.max(2, Math.floor(width / 60));
  const rough = (totals[last]! - totals[0]!) / most;
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const rolledIndex = totals.indexOf(rolled);
  const fixed = [0, last, ...(rolledIndex >= 0 ? [rolledIndex] : [])];
  // Labels at least this many bars apart (about 40 px).
  const room = Math.max(1, Math.ceil((40 * totals.length) / width));
  const ticks = new Set(fixed);
  totals.forEach((total, index) => {
    if (total % step === 0 && fixed.every((f) => Math.abs(f - index) >= room)) ticks.add(index);
  });
  return [...ticks].sort((a, b) => a - b);
}

export interface OddsElements {
  wrap: HTMLElement;
  caption: HTMLElement;
  beyond: HTMLElement;
  detail: HTMLElement;
  summary: HTMLElement;
  /** The radio buttons choosing exactly, at least or at most. */
  modes: RadioNodeList;
}

/** The odds section: draws a distribution, and again when the mode or the width changes. */
export class OddsView {
  private shown: { stats: StatsResponse; rolled: number; label: string } | undefined;
  private focusTotal: number | undefined;

  constructor(private readonly view: OddsElements) {
    for (const radio of view.modes) {
      radio.addEventListener('change', () => this.draw());
    }
    new ResizeObserver(() => this.draw()).observe(view.wrap);
  }

  private get mode(): OddsMode {
    const value = this.view.modes.value;
    return value === 'atLeast' || value === 'atMost' ? value : 'exactly';
  }

  /**
   * Draws `stats`, marking `rolled` (the total just rolled); `label` names what was rolled (the
   * formula with its bonuses and advantage), the formula alone by default.
   */
  show(stats: StatsResponse, rolled: number, label: string = stats.formula): void {
    this.shown = { stats, rolled, label };
    this.focusTotal = rolled;
    this.summarise(stats);
    this.draw();
  }

  private summarise(stats: StatsResponse): void {
    const rows: [string, string][] = [
      ['Mean', stats.mean.toFixed(2)],
      ['Standard deviation', stats.sd.toFixed(2)],
    ];
    for (const [q, total] of Object.entries(stats.percentiles ?? {}))
      rows.push([`${q}th percentile`, String(total)]);
    this.view.summary.replaceChildren(
      ...rows.flatMap(([term, value]) => {
        const dt = document.createElement('dt');
        dt.textContent = term;
        const dd = document.createElement('dd');
        dd.textContent = value;
        return [dt, dd];
      }),
    );
  }

  private draw(): void {
    if (this.shown === undefined) return;
    const { stats, rolled, label } = this.shown;
    const { view } = this;
    const outcomes = stats.outcomes;
    if (outcomes.length === 0) {
      view.wrap.replaceChildren();
      view.caption.textContent = `Exact distribution of ${label}: totals from ${stats.min} to ${stats.max}.`;
      view.beyond.textContent = '';
      view.detail.textContent = 'Too many possible totals to draw; the summary is below.';
      return;
    }
    const [first, last] = oddsWindow(outcomes);
    const drawn = outcomes.slice(first, last + 1);
    const left = outcomes.slice(0, first).reduce((sum, o) => sum + o.probability, 0);
    const right = outcomes.slice(last + 1).reduce((sum, o) => sum + o.probability, 0);
    view.caption.textContent =
      `Exact distribution of ${label}: ${outcomes.length} possible totals, from ${stats.min} to ${stats.max}` +
      (drawn.length === outcomes.length
        ? '.'
        : `; drawn: ${drawn[0]!.total} to ${drawn.at(-1)!.total}, where all but ${percent(left + right)} of the chance is.`);
    const beyond: string[] = [];
    if (first > 0) beyond.push(beyondText(stats, 0, first - 1, 'below', rolled));
    if (last < outcomes.length - 1)
      beyond.push(beyondText(stats, last + 1, outcomes.length - 1, 'above', rolled));
    if (stats.truncation !== null) {
      beyond.push(
        `Explosion chains are counted to ${stats.truncation.depth} extra dice each; longer chains, not listed, have a chance of ${percent(stats.truncation.tailProbability)} together.`,
      );
    }
    view.beyond.textContent = beyond.join(' ');
    view.beyond.hidden = beyond.length === 0;

    const mode = this.mode;
    const width = Math.max(280, Math.floor(view.wrap.clientWidth || 600));
    const value = (o: StatsOutcome) =>
      mode === 'exactly' ? o.probability : mode === 'atLeast' ? o.atLeast : o.atMost;
    const highest = mode === 'exactly' ? Math.max(...drawn.map((o) => o.probability)) : 1;
    const step = width / drawn.length;
    const svg = svgNode('svg', {
      viewBox: `0 0 ${width} ${TOP + HEIGHT + AXIS}`,
      width,
      height: TOP + HEIGHT + AXIS,
      class: 'histogram',
      role: 'group',
      'aria-label': `Chance of rolling ${MODE_WORDS[mode]} each total of ${stats.formula}, ${drawn[0]!.total} to ${drawn.at(-1)!.total}; the rolled total ${rolled} is marked. Use the arrow keys to move between totals.`,
    });
    const scale = svgNode('text', { x: 2, y: 10, class: 'axis' });
    scale.textContent = mode === 'exactly' ? `top: ${percent(highest)}` : 'top: 100%';
    scale.setAttribute('aria-hidden', 'true');
    svg.append(scale);
    const describe = (o: StatsOutcome): string =>
      `Total ${o.total}${o.total === rolled ? ' (rolled)' : ''}: exactly ${percent(o.probability)}, at least ${percent(o.atLeast)}, at most ${percent(o.atMost)}`;
    const focusIndex = Math.max(
      0,
      drawn.findIndex((o) => o.total === (this.focusTotal ?? rolled)),
    );
    const bars: SVGRectElement[] = drawn.map((outcome, index) => {
      const height = Math.max(1, (value(outcome) / highest) * HEIGHT);
      const bar = svgNode('rect', {
        x: index * step + (step > 4 ? step * 0.1 : 0),
        y: TOP + HEIGHT - height,
        width: Math.max(0.5, step > 4 ? step * 0.8 : step),
        height,
        class: outcome.total === rolled ? 'bar rolled' : 'bar',
        tabindex: index === focusIndex ? 0 : -1,
        role: 'img',
        'aria-label': describe(outcome),
        'data-total': outcome.total,
      });
      const title = svgNode('title', {});
      title.textContent = describe(outcome);
      bar.append(title);
      const show = () => {
        view.detail.textContent = describe(outcome);
      };
      bar.addEventListener('mouseenter', show);
      bar.addEventListener('focus', () => {
        this.focusTotal = outcome.total;
        for (const other of bars) other.setAttribute('tabindex', other === bar ? '0' : '-1');
        show();
      });
      bar.addEventListener('keydown', (event) => {
        const next =
          event.key === 'ArrowRight' || event.key === 'ArrowUp'
            ? index + 1
            : event.key === 'ArrowLeft' || event.key === 'ArrowDown'
              ? index - 1
              : event.key === 'Home'
                ? 0
                : event.key === 'End'
                  ? bars.length - 1
                  : -1;
        const target = bars[next];
        if (target) {
          event.preventDefault();
          target.focus();
        }
      });
      return bar;
    });
    svg.append(...bars);
    // The rolled total: a marker above its bar, and its tick in bold.
    const rolledIndex = drawn.findIndex((o) => o.total === rolled);
    if (rolledIndex >= 0) {
      const x = rolledIndex * step + step / 2;
      svg.append(
        svgNode('path', {
          d: `M ${x - 5} 13 L ${x + 5} 13 L ${x} 21 Z`,
          class: 'marker',
          'aria-hidden': 'true',
        }),
      );
    }
    const low = drawn[0]!.total;
    const high = drawn.at(-1)!.total;
    for (const index of ticksOf(
      drawn.map((o) => o.total),
      rolled,
      width,
    )) {
      const total = drawn[index]!.total;
      const x = index * step + step / 2;
      const anchor = x < 24 ? 'start' : x > width - 24 ? 'end' : 'middle';
      const tick = svgNode('text', {
        x:
          anchor === 'start'
            ? Math.max(0, x - step / 2)
            : anchor === 'end'
              ? Math.min(width, x + step / 2)
              : x,
        y: TOP + HEIGHT + 16,
        'text-anchor': anchor,
        class: total === rolled ? 'axis rolled' : 'axis',
        'aria-hidden': 'true',
      });
      tick.textContent = String(total);
      svg.append(tick);
    }
    if (first > 0 || last < outcomes.length - 1) {
      const more = svgNode('text', { x: width, y: TOP + HEIGHT + 31, 'text-anchor': 'end', class: 'axis' });
      more.textContent = [
        first > 0 ? `… below ${low}` : '',
        last < outcomes.length - 1 ? `above ${high} …` : '',
      ]
        .filter(Boolean)
        .join(', ')
        .concat(': see below');
      more.setAttribute('aria-hidden', 'true');
      svg.append(more);
    }
    const hadFocus = view.wrap.contains(document.activeElement);
    view.wrap.replaceChildren(svg);
    if (hadFocus) bars[focusIndex]?.focus();
    const focused = drawn[focusIndex]!;
    if (rolledIndex >= 0 || focused.total === this.focusTotal) view.detail.textContent = describe(focused);
    else
      view.detail.textContent = `The rolled total ${rolled} is outside the totals drawn (see below the chart).`;
  }
}
