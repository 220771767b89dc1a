// The exact distribution of /v1/stats as a histogram that reads at a glance (docs/api.md, "The
// page at /"): the axis covers where the mass is (at least 99.9 % of it) and says what lies beyond
// with its exact probability; "exactly", "at least" or "at most" each total; the rolled total
// marked. Other formulas asked for comparison (POST /v1/stats/batch) are drawn over the roll's
// bars as lines, each with its own dash and marker shape, named in a legend: told apart without
// colour. The bars are one tab stop: arrows, Home and End move along them.
import { chanceOf, oddsWindow, percentText as percent } from '../packages/client/src/describe.js';
import type { StatsOutcome, StatsResponse } from './types.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 180;
const AXIS = 34;
const TOP = 24;
export type OddsMode = 'exactly' | 'atLeast' | 'atMost';

const MODE_WORDS: Record<OddsMode, string> = { exactly: 'exactly', atLeast: 'at least', atMost: 'at most' };

/** Formulas drawn over the roll's own, at most (the batch answers five, the roll's among them). */
export const COMPARED_MAX = 4;

/** How each compared series is drawn, in order: a dash pattern and a marker shape, said in words. */
const STYLES = [
  { dash: '', shape: 'circle', words: 'solid line, circles' },
  { dash: '7 4', shape: 'square', words: 'dashed line, squares' },
  { dash: '2 3', shape: 'triangle', words: 'dotted line, triangles' },
  { dash: '9 3 2 3', shape: 'diamond', words: 'dash-dot line, diamonds' },
] as const;

/** The outline of a marker of `shape` centred on (x, y). */
function markerPath(shape: (typeof STYLES)[number]['shape'], x: number, y: number, r = 4): string {
  switch (shape) {
    case 'circle':
      return `M ${x - r} ${y} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0 Z`;
    case 'square':
      return `M ${x - r} ${y - r} h ${2 * r} v ${2 * r} h ${-2 * r} Z`;
    case 'triangle':
      return `M ${x} ${y - r - 1} L ${x + r + 1} ${y + r} L ${x - r - 1} ${y + r} Z`;
    case 'diamond':
      return `M ${x} ${y - r - 1} L ${x + r + 1} ${y} L ${x} ${y + r + 1} L ${x - r - 1} ${y} Z`;
  }
}

function svgNode<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** One distribution drawn: the answer and the words naming it. */
export interface OddsSeries {
  stats: StatsResponse;
  label: string;
}

type Reading = Pick<StatsOutcome, 'probability' | 'atLeast' | 'atMost'>;

/**
 * The chance of `total` in `outcomes` (lowest first): a total that cannot occur has chance 0
 * exactly, and the "at least" and "at most" of its neighbours.
 */
function readingAt(outcomes: readonly StatsOutcome[], total: number): Reading {
  const above = outcomes.findIndex((o) => o.total >= total);
  if (above >= 0 && outcomes[above]!.total === total) return outcomes[above]!;
  const next = above < 0 ? outcomes.length : above;
  return {
    probability: 0,
    atLeast: next < outcomes.length ? outcomes[next]!.atLeast : 0,
    atMost: next > 0 ? outcomes[next - 1]!.atMost : 0,
  };
}

function beyondText(
  stats: StatsResponse,
  from: number,
  to: number,
  side: 'below' | 'above',
  rolled: number | undefined,
): string {
  const { probability: p, exact } = chanceOf(stats, from, to);
  const edge = side === 'below' ? stats.outcomes[to + 1]!.total : stats.outcomes[from - 1]!.total;
  const range = side === 'below' ? `below ${edge}` : `above ${edge}`;
  const low = stats.outcomes[from]!.total;
  const high = stats.outcomes[to]!.total;
  const here =
    rolled !== undefined && rolled >= low && rolled <= high ? ` (your roll, ${rolled}, is one of them)` : '';
  return `Totals ${range} (${low} to ${high}) are not drawn: together ${percent(p)}${exact === undefined ? '' : `, exactly ${exact}`}${here}.`;
}

/** What lies outside the totals `low` to `high` of one series, in words (empty when nothing). */
function beyondOf(stats: StatsResponse, low: number, high: number, rolled: number | undefined): string[] {
  const outcomes = stats.outcomes;
  const from = outcomes.findIndex((o) => o.total >= low);
  const past = outcomes.findIndex((o) => o.total > high);
  const said: string[] = [];
  if (from > 0) said.push(beyondText(stats, 0, from - 1, 'below', rolled));
  if (past >= 0 && past <= outcomes.length - 1)
    said.push(beyondText(stats, past, outcomes.length - 1, 'above', rolled));
  if (stats.truncation !== null) {
    said.push(
      `Explosion chains are counted to ${stats.truncation.depth} extra dice each; longer chains, not listed, have a chance of ${percent(stats.truncation.tailProbability)} together.`,
    );
  }
  return said;
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

/**
 * The totals drawn: from the least to the greatest end of every series' own window (each holding
 * at least 99.9 % of its chance), every total some series can roll there.
 */
function columnsOf(series: readonly OddsSeries[]): number[] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const { stats } of series) {
    if (stats.outcomes.length === 0) continue;
    const [first, last] = oddsWindow(stats.outcomes);
    low = Math.min(low, stats.outcomes[first]!.total);
    high = Math.max(high, stats.outcomes[last]!.total);
  }
  const totals = new Set<number>();
  for (const { stats } of series) {
    for (const o of stats.outcomes) if (o.total >= low && o.total <= high) totals.add(o.total);
  }
  return [...totals].sort((a, b) => a - b);
}

export interface OddsElements {
  wrap: HTMLElement;
  caption: HTMLElement;
  beyond: HTMLElement;
  detail: HTMLElement;
  summary: HTMLElement;
  /** The list naming each series and how it is drawn (hidden when the roll is drawn alone). */
  legend: HTMLElement;
  /** The radio buttons choosing exactly, at least or at most. */
  modes: RadioNodeList;
}

/** The odds section: draws a distribution, and again when the mode or the width changes. */
export class OddsView {
  private shown: { stats: StatsResponse; rolled: number; label: string } | undefined;
  private compared: OddsSeries[] = [];
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
    this.summarise();
    this.draw();
  }

  /** Draws `series` (at most COMPARED_MAX) over the roll's bars, and with every roll after; none: the roll alone. */
  compare(series: readonly OddsSeries[]): void {
    this.compared = series.slice(0, COMPARED_MAX);
    this.summarise();
    this.draw();
  }

  private summarise(): void {
    if (this.shown === undefined) return;
    const rows: [string, string][] = [];
    const several = this.compared.length > 0;
    for (const { stats, label } of [this.shown, ...this.compared]) {
      const of = several ? ` of ${label}` : '';
      rows.push([`Mean${of}`, stats.mean.toFixed(2)], [`Standard deviation${of}`, stats.sd.toFixed(2)]);
      if (!several) {
        for (const [q, total] of Object.entries(stats.percentiles ?? {}))
          rows.push([`${q}th percentile`, String(total)]);
      }
    }
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

  /** The legend: each series' name and how it is drawn, with a sample of its line and marker. */
  private drawLegend(rolledLabel: string): void {
    const { legend } = this.view;
    legend.hidden = this.compared.length === 0;
    if (legend.hidden) {
      legend.replaceChildren();
      return;
    }
    const item = (sample: SVGSVGElement, label: string, words: string, series: number) => {
      const li = document.createElement('li');
      li.dataset.series = String(series);
      const code = document.createElement('code');
      code.textContent = label;
      li.append(sample, code, ` (${words})`);
      return li;
    };
    const sample = () =>
      svgNode('svg', { width: 30, height: 14, viewBox: '0 0 30 14', 'aria-hidden': 'true' });
    const bars = sample();
    bars.append(svgNode('rect', { x: 8, y: 2, width: 14, height: 12, class: 'bar' }));
    legend.replaceChildren(
      item(bars, rolledLabel, 'bars, your roll', 0),
      ...this.compared.map(({ label }, index) => {
        const style = STYLES[index]!;
        const line = sample();
        line.append(
          svgNode('path', {
            d: 'M 1 7 L 29 7',
            class: `series-line series-${index + 1}`,
            'stroke-dasharray': style.dash || 'none',
          }),
          svgNode('path', { d: markerPath(style.shape, 15, 7), class: `point series-${index + 1}` }),
        );
        return item(line, label, style.words, index + 1);
      }),
    );
  }

  private draw(): void {
    if (this.shown === undefined) return;
    const { stats, rolled, label } = this.shown;
    const { view } = this;
    const outcomes = stats.outcomes;
    this.drawLegend(label);
    if (outcomes.length === 0) {
      view.wrap.replaceChildren();
      view.caption.textContent = `Exact distribution of ${label}: totals from ${stats.min} to ${stats.max}.`;
      view.beyond.textContent = '';
      view.detail.textContent = 'Too many possible totals to draw; the summary is below.';
      return;
    }
    const compared = this.compared.filter((series) => series.stats.outcomes.length > 0);
    const all: OddsSeries[] = [{ stats, label }, ...compared];
    const columns = columnsOf(all);
    const low = columns[0]!;
    const high = columns.at(-1)!;
    const outside = (series: StatsResponse) =>
      series.outcomes.reduce((sum, o) => (o.total < low || o.total > high ? sum + o.probability : sum), 0);
    const left = outcomes.reduce((sum, o) => (o.total < low ? sum + o.probability : sum), 0);
    const right = outcomes.reduce((sum, o) => (o.total > high ? sum + o.probability : sum), 0);
    if (compared.length === 0) {
      view.caption.textContent =
        `Exact distribution of ${label}: ${outcomes.length} possible totals, from ${stats.min} to ${stats.max}` +
        (columns.length === outcomes.length
          ? '.'
          : `; drawn: ${low} to ${high}, where all but ${percent(left + right)} of the chance is.`);
    } else {
      const most = Math.max(...all.map((series) => outside(series.stats)));
      view.caption.textContent = `Exact distributions of ${all.map((series) => series.label).join(', ')}, drawn together over the totals ${low} to ${high}${most > 0 ? `, where all but at most ${percent(most)} of each one's chance is` : ''}.`;
    }
    // What lies beyond, per series (named when there are several).
    const beyond = [
      { stats, label, rolled },
      ...this.compared.map((series) => ({ ...series, rolled: undefined })),
    ].flatMap((series) => {
      const said =
        series.stats.outcomes.length === 0
          ? [`Too many possible totals to draw (${series.stats.min} to ${series.stats.max}).`]
          : beyondOf(series.stats, low, high, series.rolled);
      if (said.length === 0) return [];
      return this.compared.length > 0 ? [`Of ${series.label}: ${said.join(' ')}`] : said;
    });
    view.beyond.textContent = beyond.join(' ');
    view.beyond.hidden = beyond.length === 0;

    const mode = this.mode;
    const width = Math.max(280, Math.floor(view.wrap.clientWidth || 600));
    const value = (o: Reading) =>
      mode === 'exactly' ? o.probability : mode === 'atLeast' ? o.atLeast : o.atMost;
    const readings = all.map((series) => columns.map((total) => readingAt(series.stats.outcomes, total)));
    const highest = mode === 'exactly' ? Math.max(...readings.flat().map((r) => r.probability)) : 1;
    const step = width / columns.length;
    const heightOf = (v: number) => (v > 0 ? Math.max(1, (v / highest) * HEIGHT) : 0);
    const svg = svgNode('svg', {
      viewBox: `0 0 ${width} ${TOP + HEIGHT + AXIS}`,
      width,
      height: TOP + HEIGHT + AXIS,
      class: 'histogram',
      role: 'group',
      'aria-label': `Chance of rolling ${MODE_WORDS[mode]} each total of ${all.map((series) => series.stats.formula).join(', ')}, ${low} to ${high}; the rolled total ${rolled} is marked. Use the arrow keys to move between totals.`,
    });
    const scale = svgNode('text', { x: 2, y: 10, class: 'axis' });
    scale.textContent = mode === 'exactly' ? `top: ${percent(highest)}` : 'top: 100%';
    scale.setAttribute('aria-hidden', 'true');
    svg.append(scale);
    const readingText = (r: Reading) =>
      `exactly ${percent(r.probability)}, at least ${percent(r.atLeast)}, at most ${percent(r.atMost)}`;
    /** Every series' chance at the total of column `index`: the bar's label, and the detail line. */
    const describe = (index: number): string => {
      const total = columns[index]!;
      return [
        `Total ${total}${total === rolled ? ' (rolled)' : ''}: ${readingText(readings[0]![index]!)}`,
        ...compared.map((series, k) => `${series.label}: ${readingText(readings[k + 1]![index]!)}`),
      ].join('; ');
    };
    const detail = (index: number) => {
      view.detail.textContent = describe(index);
    };
    const focusIndex = Math.max(
      0,
      columns.findIndex((total) => total === (this.focusTotal ?? rolled)),
    );
    const bars: SVGRectElement[] = columns.map((total, index) => {
      const reading = readings[0]![index]!;
      const height = heightOf(value(reading));
      const bar = svgNode('rect', {
        x: index * step + (step > 4 ? step * 0.1 : 0),
        y: TOP + HEIGHT - height,
        width: Math.max(0.5, step > 4 ? step * 0.8 : step),
        height,
        class: total === rolled ? 'bar rolled' : 'bar',
        tabindex: index === focusIndex ? 0 : -1,
        role: 'img',
        'aria-label': describe(index),
        'data-total': total,
        'data-series': 0,
        'data-probability': reading.probability,
      });
      const title = svgNode('title', {});
      title.textContent = describe(index);
      bar.append(title);
      const show = () => detail(index);
      bar.addEventListener('mouseenter', show);
      bar.addEventListener('focus', () => {
        this.focusTotal = total;
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
    // The compared series over the bars: a line through the totals each can roll, a marker on
    // each. Read aloud through the bars (each bar's label gives every series at its total).
    compared.forEach((series, k) => {
      const style = STYLES[k]!;
      const group = svgNode('g', {
        class: `series series-${k + 1}`,
        'aria-hidden': 'true',
        'data-series': k + 1,
      });
      const points: [number, number, number][] = [];
      columns.forEach((total, index) => {
        const listed = series.stats.outcomes.find((o) => o.total === total);
        if (listed === undefined) return;
        points.push([index, index * step + step / 2, TOP + HEIGHT - heightOf(value(listed))]);
      });
      group.append(
        svgNode('path', {
          d: points.map(([, x, y], i) => `${i === 0 ? 'M' : 'L'} ${x} ${y}`).join(' '),
          class: `series-line series-${k + 1}`,
          'stroke-dasharray': style.dash || 'none',
        }),
      );
      for (const [index, x, y] of points) {
        const reading = readings[k + 1]![index]!;
        const point = svgNode('path', {
          d: markerPath(style.shape, x, y),
          class: `point series-${k + 1}`,
          'data-total': columns[index]!,
          'data-probability': reading.probability,
        });
        const title = svgNode('title', {});
        title.textContent = `${series.label}, total ${columns[index]}: ${readingText(reading)}`;
        point.append(title);
        point.addEventListener('mouseenter', () => detail(index));
        group.append(point);
      }
      svg.append(group);
    });
    // The rolled total: a marker above its bar, and its tick in bold.
    const rolledIndex = columns.indexOf(rolled);
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
    for (const index of ticksOf(columns, rolled, width)) {
      const total = columns[index]!;
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
    const below = all.some((series) => series.stats.outcomes[0]!.total < low);
    const above = all.some((series) => series.stats.outcomes.at(-1)!.total > high);
    if (below || above) {
      const more = svgNode('text', { x: width, y: TOP + HEIGHT + 31, 'text-anchor': 'end', class: 'axis' });
      more.textContent = [below ? `… below ${low}` : '', above ? `above ${high} …` : '']
        .filter(Boolean)
        .join(', ')
        .concat(': see below');
      more.setAttribute('aria-hidden', 'true');
      svg.append(more);
    }
    const hadFocus = view.wrap.contains(document.activeElement);
    view.wrap.replaceChildren(svg);
    if (hadFocus) bars[focusIndex]?.focus();
    if (rolledIndex >= 0 || columns[focusIndex] === this.focusTotal) detail(focusIndex);
    else
      view.detail.textContent = `The rolled total ${rolled} is outside the totals drawn (see below the chart).`;
  }
}
