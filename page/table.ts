// A table in the page (docs/trust.md): create or join one (its id in the address to share), follow
// its rolls live over Server-Sent Events, and check each entry here with the library's own
// WebCrypto verifier (packages/client/src/verify.ts): its signature, its number and its link to
// the entry before. A gap or a broken link is shown, never hidden. It also keeps the latest signed
// head of each table it has seen (in localStorage, so across visits; docs/trust.md#signed-heads),
// verifies every head the stream sends, and warns when the log it holds is shorter than a head
// promises or forks from it.
import { describeRoll } from '../packages/client/src/describe.js';
import {
  compareHeads,
  GENESIS_PREV,
  receiptHash,
  verifyHead,
  verifyReceipt,
} from '../packages/client/src/verify.js';
import type { Jwks, Receipt, TableHead } from './types.js';

export interface TableView {
  status: HTMLElement;
  chain: HTMLElement;
  log: HTMLOListElement;
  idInput: HTMLInputElement;
  /** The latest signed head: its entries, time and key, and whether it verified. */
  head: HTMLElement;
  /** Empty, or why the log this page holds does not match a head (cut short, forked). */
  headWarning: HTMLElement;
}

const TABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class TableSession {
  private source: EventSource | undefined;
  private jwks: Promise<Jwks> | undefined;
  /** Entries are checked one at a time, in the order they arrive. */
  private queue: Promise<void> = Promise.resolve();
  private lastSeq = 0;
  private lastHash = GENESIS_PREV;
  /** The hash of every entry this page holds, by sequence number: what a head's lastHash is checked against. */
  private hashes = new Map<number, string>();
  /** The latest head of this table that verified and agreed with every one before it. */
  private held: TableHead | undefined;
  id: string | undefined;

  constructor(private readonly view: TableView) {}

  private keys(): Promise<Jwks> {
    this.jwks ??= fetch('/.well-known/jwks.json', { headers: { accept: 'application/json' } }).then(
      (response) => (response.ok ? (response.json() as Promise<Jwks>) : { keys: [] }),
    );
    return this.jwks;
  }

  async create(): Promise<void> {
    const response = await fetch('/v1/tables', { method: 'POST' });
    const body = (await response.json()) as { id?: string; error?: { message?: string } };
    if (!response.ok || !body.id) {
      this.view.status.textContent = `Could not create a table: ${body.error?.message ?? `HTTP ${response.status}`}`;
      return;
    }
    this.join(body.id);
  }

  join(id: string): void {
    if (!TABLE_ID.test(id)) {
      this.view.status.textContent = 'A table id is letters, digits, - and _ only.';
      return;
    }
    this.source?.close();
    this.id = id;
    this.lastSeq = 0;
    this.lastHash = GENESIS_PREV;
    this.hashes = new Map();
    this.held = heldHead(id);
    this.view.log.replaceChildren();
    this.view.chain.textContent = '';
    this.view.head.textContent = '';
    this.view.headWarning.textContent = '';
    delete this.view.headWarning.dataset.problem;
    this.view.idInput.value = id;
    const url = new URL(window.location.href);
    url.searchParams.set('table', id);
    window.history.replaceState(null, '', url);
    this.view.status.textContent = `At table ${id}: your rolls are made here. Share this page's address to invite others.`;
    this.view.status.dataset.table = id;
    const source = new EventSource(`/v1/tables/${encodeURIComponent(id)}/events`);
    source.addEventListener('roll', (event) => {
      const entry = JSON.parse((event as MessageEvent<string>).data) as Receipt;
      this.queue = this.queue.then(() => this.add(entry));
    });
    source.addEventListener('head', (event) => {
      const head = JSON.parse((event as MessageEvent<string>).data) as TableHead;
      this.queue = this.queue.then(() => this.checkHead(head));
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        this.view.status.textContent = `The live feed of table ${id} closed (is the id right?).`;
      }
    });
    this.source = source;
  }

  private async add(entry: Receipt): Promise<void> {
    const seq = entry.seq ?? 0;
    if (seq <= this.lastSeq) return; // sent again after a reconnect
    const problems: string[] = [];
    const verified = await verifyReceipt(entry, await this.keys());
    if (!verified.valid) problems.push(verified.reason);
    if (entry.table !== this.id) problems.push('entry of another table');
    if (seq !== this.lastSeq + 1) {
      const gap = document.createElement('li');
      gap.className = 'gap';
      gap.textContent = `Gap: entries ${this.lastSeq + 1} to ${seq - 1} are missing.`;
      this.view.log.prepend(gap);
      this.view.chain.textContent = `Chain broken: entries ${this.lastSeq + 1} to ${seq - 1} never arrived.`;
    } else if (entry.prev !== this.lastHash) {
      problems.push('prev is not the hash of the entry before');
      this.view.chain.textContent = `Chain broken at entry ${seq}: it does not follow entry ${seq - 1}.`;
    }
    this.lastSeq = seq;
    try {
      this.lastHash = await receiptHash(entry);
    } catch {
      this.lastHash = '';
    }
    this.hashes.set(seq, this.lastHash);
    this.view.log.prepend(this.entryElement(entry, problems));
  }

  /**
   * A head the stream sent (after each entry, and once the log is read): verified with the
   * library's verifier, checked against the log this page holds (as long as it promises, its entry
   * number `entries` the one it signed) and against the latest head held (never fewer entries, never
   * another entry at the same number). A head that agrees becomes the one held.
   */
  private async checkHead(head: TableHead): Promise<void> {
    const signed = await verifyHead(head, await this.keys());
    const problems: { kind: string; text: string }[] = [];
    if (!signed.valid)
      problems.push({ kind: 'invalid', text: `The head does not verify: ${signed.reason}.` });
    else if (head.table !== this.id)
      problems.push({ kind: 'invalid', text: 'The head is of another table.' });
    else {
      const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
      if (this.lastSeq < head.entries)
        problems.push({
          kind: 'shorter',
          text: `The head promises ${entries(head.entries)} but this page holds ${this.lastSeq}: entries are missing.`,
        });
      else if ((head.entries === 0 ? GENESIS_PREV : this.hashes.get(head.entries)) !== head.lastHash)
        problems.push({
          kind: 'forked',
          text: `Entry ${head.entries} this page holds is not the entry the head signed: the log forks from the head.`,
        });
      const held = this.held;
      const comparison = held && compareHeads(held, head);
      if (held && comparison?.reason !== undefined)
        problems.push({
          kind: comparison.status,
          text: `Since a head this page holds: ${comparison.reason}.`,
        });
      else if (
        held &&
        held.entries > 0 &&
        this.hashes.has(held.entries) &&
        this.hashes.get(held.entries) !== held.lastHash
      )
        problems.push({
          kind: 'forked',
          text: `Entry ${held.entries} is not the entry a head this page holds signed: the log forked since.`,
        });
      if (comparison === undefined || comparison.reason === undefined) {
        this.held = head;
        keepHead(head);
      }
    }
    this.showHead(head, signed.valid, problems);
  }

  private showHead(head: TableHead, valid: boolean, problems: { kind: string; text: string }[]): void {
    const view = this.view.head;
    const time = document.createElement('time');
    time.dateTime = head.time;
    time.textContent = new Date(head.time).toLocaleTimeString();
    const badge = document.createElement('span');
    badge.className = `badge ${valid ? 'valid' : 'invalid'}`;
    badge.textContent = valid ? '✓ verified' : '✗ invalid';
    badge.dataset.valid = String(valid);
    const kid = document.createElement('code');
    kid.className = 'kid';
    kid.title = head.kid;
    kid.textContent = head.kid.slice(0, 10);
    view.dataset.entries = String(head.entries);
    view.replaceChildren(
      `Signed head: ${head.entries} ${head.entries === 1 ? 'entry' : 'entries'} at `,
      time,
      ', key ',
      kid,
      ' ',
      badge,
    );
    // A warning stays until the table is joined again: a cut or a fork is not undone by a later head.
    if (problems.length === 0) return;
    const warning = this.view.headWarning;
    warning.dataset.problem = problems[0]!.kind;
    warning.textContent = problems.map((problem) => problem.text).join(' ');
  }

  private entryElement(entry: Receipt, problems: string[]): HTMLLIElement {
    const item = document.createElement('li');
    item.className = 'entry';
    item.dataset.seq = String(entry.seq);
    item.dataset.total = String(entry.roll?.total);
    const span = (className: string, text: string) => {
      const node = document.createElement('span');
      node.className = className;
      node.textContent = text;
      return node;
    };
    const valid = problems.length === 0;
    const badge = span(`badge ${valid ? 'valid' : 'invalid'}`, valid ? '✓ verified' : '✗ invalid');
    badge.dataset.valid = String(valid);
    badge.title = valid ? `Signed by key ${entry.kid}` : problems.join('; ');
    const time = document.createElement('time');
    time.dateTime = entry.time;
    time.textContent = new Date(entry.time).toLocaleTimeString();
    const head = document.createElement('p');
    head.className = 'entry-head';
    head.append(span('seq', `#${entry.seq}`));
    // Who rolled it and what for, when the roll says (a request may carry `by` and `note`).
    const { by, note } = labelsOf(entry);
    if (by !== undefined) head.append(span('by', by));
    head.append(span('total', `= ${entry.roll?.total ?? '?'}`), badge, time);
    item.append(head);
    if (note !== undefined) item.append(span('note', note));
    // Its dice: the roll's description in its text form, from which the total is rebuilt.
    const what = document.createElement('code');
    what.className = 'what';
    what.textContent = textOf(entry);
    item.append(what);
    if (!valid) item.append(span('why', problems.join('; ')));
    return item;
  }
}

/** The roll's text form (`4d6kh3 [6 5 3 (1)] + 2 = 16`); a roll it cannot read, as `formula = total`. */
function textOf(entry: Receipt): string {
  try {
    return describeRoll(entry.roll, entry.request).text;
  } catch {
    return `${entry.roll?.formula ?? '?'} = ${entry.roll?.total ?? '?'}`;
  }
}

/** `by` and `note` of a roll's request, when it carries them as text; read defensively. */
function labelsOf(entry: Receipt): { by?: string; note?: string } {
  const request = (entry.request ?? {}) as { by?: unknown; note?: unknown };
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const labels: { by?: string; note?: string } = {};
  const by = text(request.by);
  const note = text(request.note);
  if (by !== undefined) labels.by = by;
  if (note !== undefined) labels.note = note;
  return labels;
}

const HEAD_KEY = 'fairdice.head.';

/** The head of table `id` kept from an earlier visit, read defensively (storage may be off or edited). */
function heldHead(id: string): TableHead | undefined {
  try {
    const text = window.localStorage.getItem(HEAD_KEY + id);
    const head = text === null ? undefined : (JSON.parse(text) as TableHead);
    return head && typeof head.entries === 'number' && typeof head.lastHash === 'string' && head.table === id
      ? head
      : undefined;
  } catch {
    return undefined;
  }
}

function keepHead(head: TableHead): void {
  try {
    window.localStorage.setItem(HEAD_KEY + head.table, JSON.stringify(head));
  } catch {
    // Storage off (a private window): the head is held for this visit only.
  }
}
