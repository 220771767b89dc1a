// The page at `/`: a roller that checks the formula as it is typed (the service's own parser,
// bundled), draws every die of the answer, the exact odds (when the server offers /v1/stats) and
// a shared, verified table (when it offers tables). docs/api.md, "The page at /".

import {
  type DescribedRequest,
  describeRoll,
  type RollDescription,
} from '../packages/client/src/describe.js';
import { FormulaError, parseFormula, parseFragment } from '../src/formula/index.js';
import { CompareForm } from './compare.js';
import { renderRoll, totalNote } from './dice-view.js';
import { OddsView } from './odds.js';
import { type FoundOdds, type OddsRequest, OddsSource } from './odds-source.js';
import { TableReportView } from './report.js';
import { TableSession } from './table.js';
import type { ApiErrorBody, StatsResponse, TableRollResponse } from './types.js';
import './style.css';

const byId = <T extends HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node as T;
};

const form = byId<HTMLFormElement>('roll-form');
const formulaInput = byId<HTMLInputElement>('formula');
const formulaError = byId('formula-error');
const bonusesInput = byId<HTMLInputElement>('bonuses');
const bonusesError = byId('bonuses-error');
const result = byId('roll-result');
const totalOutput = byId<HTMLOutputElement>('total');
const totalNoteText = byId('total-note');
const rollTitle = byId('roll-title');
const advantageNote = byId('advantage-note');
const rollText = byId('roll-text');
const diceTarget = byId('dice');
const rollFailure = byId('roll-failure');
const rollWait = byId('roll-wait');
const rollButton = byId<HTMLButtonElement>('roll-button');
const staleNote = byId('roll-stale');
const oddsSection = byId('odds');
const oddsFailure = byId('odds-failure');
const tableSection = byId('table');

/** What the server offers beyond rolling, read from its OpenAPI document. */
const features = { stats: false, tables: false, sealed: false, report: false };

/** The message the API would answer for this text, or undefined when it parses. */
function formulaProblem(text: string): string | undefined {
  try {
    parseFormula(text.trim());
    return undefined;
  } catch (error) {
    if (error instanceof FormulaError) return error.message;
    throw error;
  }
}

type Bonus = number | string;

/** The roll as written: its formula, its bonuses and the advantage it was rolled with. */
function showTitle(description: RollDescription, bonuses: readonly Bonus[], sealedSeq?: number): void {
  const code = (text: string) => {
    const node = document.createElement('code');
    node.textContent = text;
    return node;
  };
  const parts: Array<Node | string> = [code(description.formula)];
  if (bonuses.length > 0) {
    parts.push(' with bonuses ');
    bonuses.forEach((bonus, index) => {
      if (index > 0) parts.push(', ');
      parts.push(code(String(bonus)));
    });
  }
  if (description.advantage !== 'normal') parts.push(`, with ${description.advantage}`);
  if (sealedSeq !== undefined)
    parts.push(`, in secret (roll #${sealedSeq}: only you see it until you reveal it)`);
  rollTitle.replaceChildren(...parts);
}

function readBonuses(): { bonuses: Bonus[]; problem: string | undefined } {
  const parts = bonusesInput.value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const bonuses: Bonus[] = [];
  for (const [index, part] of parts.entries()) {
    if (/^[+-]?\d{1,9}$/.test(part)) {
      bonuses.push(Number(part));
      continue;
    }
    try {
      parseFragment(part, { item: `bonuses[${index}]` });
    } catch (error) {
      if (error instanceof FormulaError) return { bonuses, problem: error.message };
      throw error;
    }
    bonuses.push(part);
  }
  return { bonuses, problem: undefined };
}

function showProblem(input: HTMLInputElement, target: HTMLElement, problem: string | undefined): void {
  target.textContent = problem ?? '';
  input.setAttribute('aria-invalid', String(problem !== undefined));
}

formulaInput.addEventListener('input', () => {
  showProblem(formulaInput, formulaError, formulaProblem(formulaInput.value));
});
bonusesInput.addEventListener('input', () => {
  showProblem(bonusesInput, bonusesError, readBonuses().problem);
});

async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as ApiErrorBody;
    return body.error?.message ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

const report = new TableReportView({
  button: byId<HTMLButtonElement>('table-report-button'),
  target: byId('table-report'),
  body: byId('table-report-body'),
  status: byId('table-report-status'),
});

const secretInput = byId<HTMLInputElement>('secret');
const byInput = byId<HTMLInputElement>('by');
// The name is the player's: kept in this browser for the next visit (never sent but with a roll).
try {
  byInput.value = window.localStorage.getItem('fairdice.by') ?? '';
} catch {
  // Storage off: the name is asked again next visit.
}
byInput.addEventListener('change', () => {
  try {
    window.localStorage.setItem('fairdice.by', byInput.value.trim());
  } catch {
    // Storage off.
  }
});
const table = new TableSession({
  status: byId('table-status'),
  chain: byId('table-chain'),
  log: byId<HTMLOListElement>('table-log'),
  idInput: byId<HTMLInputElement>('table-id'),
  head: byId('table-head'),
  headWarning: byId('table-head-warning'),
  secretField: byId('secret-field'),
  offers: features,
  onJoin: (id) => {
    byId('by-field').hidden = false;
    if (features.report) report.follow(id);
  },
});

const odds = new OddsView({
  wrap: byId('histogram-wrap'),
  caption: byId('odds-caption'),
  beyond: byId('odds-beyond'),
  detail: byId('odds-detail'),
  summary: byId('odds-summary'),
  legend: byId('odds-legend'),
  modes: byId<HTMLFormElement>('odds-form').elements.namedItem('odds-mode') as RadioNodeList,
});

/** `1 second`, `42 seconds`. */
const secondsInWords = (seconds: number): string => `${seconds} second${seconds === 1 ? '' : 's'}`;

let waiting: ReturnType<typeof setInterval> | undefined;

/**
 * The rate limit refused a request: say so in plain words and count down the seconds of its
 * `retry-after`, the Roll button off until then (asking again early only lengthens the wait).
 */
function waitForLimit(response: Response): void {
  const header = Number(response.headers.get('retry-after'));
  let left = Number.isFinite(header) && header > 0 ? Math.ceil(header) : 1;
  clearInterval(waiting);
  rollButton.disabled = true;
  rollWait.hidden = false;
  const say = () => {
    rollWait.dataset.seconds = String(left);
    rollWait.textContent = `You can roll again in ${secondsInWords(left)}.`;
  };
  say();
  waiting = setInterval(() => {
    left -= 1;
    if (left > 0) return say();
    clearInterval(waiting);
    rollButton.disabled = false;
    rollWait.dataset.seconds = '0';
    rollWait.textContent = 'You can roll again now.';
  }, 1000);
}

/** What a refusal says on the page: a rate limit in plain words (and its countdown), else the API's message. */
async function refusal(response: Response): Promise<string> {
  if (response.status !== 429) return errorMessage(response);
  waitForLimit(response);
  return 'Too many requests from your address: this service answers each address a set number of times a minute, and everyone behind the same router shares it.';
}

/** The odds of each roll: computed in the page off the main thread, the service asked only when it cannot. */
const oddsSource = new OddsSource();

/** The latest roll's odds: an answer for an earlier roll arriving late is dropped. */
let oddsAsked = 0;

async function showOdds(found: Promise<FoundOdds>, request: OddsRequest, rolled: number): Promise<void> {
  const asked = ++oddsAsked;
  oddsFailure.textContent = '';
  let answer = await found;
  if (asked !== oddsAsked) return;
  if ('ask' in answer) {
    const response = await oddsSource.ask(request);
    if (asked !== oddsAsked) return;
    answer = response.ok
      ? { stats: (await response.json()) as StatsResponse, from: 'service' }
      : { refused: await refusal(response) };
    if (asked !== oddsAsked) return;
  }
  if ('refused' in answer) {
    byId('odds-body').hidden = true;
    oddsFailure.textContent = `No odds for this roll: ${answer.refused}`;
    return;
  }
  oddsSource.remember(request, answer.stats);
  byId('odds-empty').hidden = true;
  byId('odds-body').hidden = false;
  // For tests and tools: where the odds shown came from (page, session or service).
  document.body.dataset.oddsFrom = answer.from;
  // Named as the roll's heading names it: with its bonuses and advantage, which the odds include.
  odds.show(answer.stats, rolled, rollTitle.textContent ?? answer.stats.formula);
}

new CompareForm(
  {
    form: byId<HTMLFormElement>('compare-form'),
    input: byId<HTMLInputElement>('compare'),
    error: byId('compare-error'),
  },
  odds,
  { problem: formulaProblem, refusal },
);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void roll();
});

async function roll(): Promise<void> {
  const formula = formulaInput.value.trim();
  const problem = formulaProblem(formula);
  showProblem(formulaInput, formulaError, problem);
  const { bonuses, problem: bonusProblem } = readBonuses();
  showProblem(bonusesInput, bonusesError, bonusProblem);
  if (problem || bonusProblem) {
    markStale('This formula was not rolled');
    (problem ? formulaInput : bonusesInput).focus();
    return;
  }
  const advantage = (form.elements.namedItem('advantage') as RadioNodeList).value;
  const request: OddsRequest = { formula };
  if (advantage !== 'normal') request.advantage = advantage;
  if (bonuses.length > 0) request.bonuses = bonuses;
  const atTable = table.id !== undefined && features.tables;
  const by = byInput.value.trim();
  const labels = atTable && by !== '' ? { by } : {};
  // In secret: the table's own roll operation, which alone rolls sealed (docs/trust.md#sealed-rolls):
  // the table sees that it was rolled and what was asked; only this page gets the dice and the token.
  const sealed = atTable && features.sealed && secretInput.checked;
  const [path, body] = sealed
    ? [`/v1/tables/${encodeURIComponent(table.id!)}/roll`, { ...request, ...labels, sealed: true }]
    : ['/v1/roll', atTable ? { ...request, ...labels, table: table.id } : request];
  rollFailure.textContent = '';
  rollWait.hidden = true;
  // The odds are computed while the roll travels: they depend on the request, not on the dice.
  const found = features.stats ? oddsSource.find(request) : undefined;
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    markStale('This roll was refused');
    rollFailure.textContent = await refusal(response);
    return;
  }
  const answer = (await response.json()) as TableRollResponse;
  markStale(undefined);
  if (answer.sealed !== undefined) table.keepSealed(answer.sealed);
  const description = describeRoll(answer, {
    bonuses,
    advantage: advantage as DescribedRequest['advantage'],
  });
  result.hidden = false;
  showTitle(description, bonuses, answer.sealed?.entry.seq);
  renderRoll(diceTarget, description);
  totalOutput.textContent = String(answer.total);
  totalNoteText.textContent = totalNote(description);
  rollText.textContent = description.text;
  const ignored =
    description.advantageAsked !== undefined && description.advantageAsked !== description.advantage;
  advantageNote.hidden = !ignored;
  advantageNote.textContent = ignored
    ? `${description.advantageAsked === 'advantage' ? 'Advantage' : 'Disadvantage'} was asked for, but the formula has no plain d20 term (a d20 without keep or drop), so nothing changed.`
    : '';
  if (found !== undefined) await showOdds(found, request, answer.total);
  // For tests and tools: how many rolls the page has shown in full (dice and odds).
  document.body.dataset.rolls = String(++rollsShown);
}

let rollsShown = 0;

/**
 * A roll asked for but not made (a formula error, a refusal, the rate limit) leaves the last roll
 * on screen: it is marked as the earlier one, never read as the answer to this one. `why`
 * undefined: the roll shown is current.
 */
function markStale(why: string | undefined): void {
  if (why === undefined) {
    delete result.dataset.stale;
    staleNote.hidden = true;
    staleNote.textContent = '';
    return;
  }
  if (result.hidden) return;
  result.dataset.stale = 'true';
  staleNote.hidden = false;
  staleNote.textContent = `${why}: the roll below is the one before.`;
}

byId('table-create').addEventListener('click', () => {
  void table.create();
});
byId<HTMLFormElement>('table-join-form').addEventListener('submit', (event) => {
  event.preventDefault();
  table.join(byId<HTMLInputElement>('table-id').value.trim());
});

async function detectFeatures(): Promise<void> {
  try {
    const response = await fetch('/openapi.json', { headers: { accept: 'application/json' } });
    const paths = ((await response.json()) as { paths?: Record<string, unknown> }).paths ?? {};
    features.stats = '/v1/stats' in paths;
    features.tables = '/v1/tables' in paths;
    features.sealed = '/v1/tables/{id}/roll' in paths && '/v1/tables/{id}/rolls/{seq}/reveal' in paths;
    features.report = '/v1/tables/{id}/report' in paths;
  } catch {
    // Rolling still works; the other sections stay hidden.
  }
  oddsSection.hidden = !features.stats;
  if (features.stats) oddsSource.start();
  tableSection.hidden = !features.tables;
  document.body.dataset.features = Object.entries(features)
    .filter(([, on]) => on)
    .map(([name]) => name)
    .join(' ');
  const id = new URL(window.location.href).searchParams.get('table');
  if (features.tables && id) table.join(id);
  document.body.dataset.ready = 'true';
}

showProblem(formulaInput, formulaError, formulaProblem(formulaInput.value));
void detectFeatures();
