// The exact distribution of /v1/stats as an SVG histogram: one focusable bar per possible total,
// the rolled total marked, "at least" shown on hover or focus (docs/api.md, /v1/stats).
import type { StatsResponse } from './types.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 200;
const AXIS = 18;

const percent = (p: number): string => {
  const value = p * 100;
  return `${value >= 10 || value === 0 ? value.toFixed(1) : value.toPrecision(2)}%`;
};

function svgNode<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export interface OddsView {
  wrap: HTMLElement;
  caption: HTMLElement;
  detail: HTMLElement;
  summary: HTMLElement;
}

/** Draws `stats` into the view, marking `rolled` (the total just rolled) when it is listed. */
export function renderOdds(view: OddsView, stats: StatsResponse, rolled: number): void {
  const outcomes = stats.outcomes;
  view.caption.textContent = `Exact distribution of ${stats.formula}: ${outcomes.length} possible totals, from ${stats.min} to ${stats.max}.`;
  const summary: [string, string][] = [
    ['Mean', stats.mean.toFixed(2)],
    ['Standard deviation', stats.sd.toFixed(2)],
  ];
  for (const [q, total] of Object.entries(stats.percentiles ?? {}))
    summary.push([`${q}th percentile`, String(total)]);
  view.summary.replaceChildren(
    ...summary.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
  if (outcomes.length === 0) {
    view.wrap.replaceChildren();
    view.detail.textContent = 'Too many possible totals to draw; the summary is below.';
    return;
  }

  const highest = Math.max(...outcomes.map((o) => o.probability));
  const step = WIDTH / outcomes.length;
  const svg = svgNode('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT + AXIS}`,
    class: 'histogram',
    role: 'group',
    'aria-label': `Histogram of ${stats.formula}; the rolled total ${rolled} is marked. Focus a bar for its odds.`,
  });
  const describe = (index: number): string => {
    const o = outcomes[index]!;
    return `Total ${o.total}${o.total === rolled ? ' (rolled)' : ''}: exactly ${percent(o.probability)}, at least ${percent(o.atLeast)}, at most ${percent(o.atMost)}`;
  };
  const show = (index: number) => {
    view.detail.textContent = describe(index);
  };
  outcomes.forEach((outcome, index) => {
    const height = Math.max(1, (outcome.probability / highest) * (HEIGHT - 4));
    const bar = svgNode('rect', {
      x: index * step + step * 0.1,
      y: HEIGHT - height,
      width: Math.max(0.5, step * 0.8),
      height,
      class: outcome.total === rolled ? 'bar rolled' : 'bar',
      tabindex: 0,
      role: 'img',
      'aria-label': describe(index),
      'data-total': outcome.total,
    });
    const title = svgNode('title', {});
    title.textContent = describe(index);
    bar.append(title);
    bar.addEventListener('mouseenter', () => show(index));
    bar.addEventListener('focus', () => show(index));
    bar.addEventListener('keydown', (event) => {
      const next = event.key === 'ArrowRight' ? index + 1 : event.key === 'ArrowLeft' ? index - 1 : -1;
      const target = svg.querySelectorAll<SVGRectElement>('rect.bar')[next];
      if (target) {
        event.preventDefault();
        target.focus();
      }
    });
    svg.append(bar);
  });
  // Labels for the first, the last and the rolled total only: more would overlap at phone width.
  const labelled = new Set([0, outcomes.length - 1, outcomes.findIndex((o) => o.total === rolled)]);
  for (const index of labelled) {
    if (index < 0) continue;
    const text = svgNode('text', {
      x: index * step + step / 2,
      y: HEIGHT + AXIS - 4,
      'text-anchor': 'middle',
      class: outcomes[index]!.total === rolled ? 'axis rolled' : 'axis',
      'aria-hidden': 'true',
    });
    text.textContent = String(outcomes[index]!.total);
    svg.append(text);
  }
  view.wrap.replaceChildren(svg);
  const rolledIndex = outcomes.findIndex((o) => o.total === rolled);
  if (rolledIndex >= 0) show(rolledIndex);
  else view.detail.textContent = `The rolled total ${rolled} is outside the listed totals.`;
}
