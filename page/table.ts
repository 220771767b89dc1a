// A table in the page (docs/trust.md): create or join one (its id in the address to share), follow
// its rolls live over Server-Sent Events, and check each entry here with the library's own
// WebCrypto verifier (packages/client/src/verify.ts): its signature, its number and its link to
// the entry before. A gap or a broken link is shown, never hidden.
import { describeRoll } from '../packages/client/src/describe.js';
import { GENESIS_PREV, receiptHash, verifyReceipt } from '../packages/client/src/verify.js';
import type { Jwks, Receipt } from './types.js';

export interface TableView {
  status: HTMLElement;
  chain: HTMLElement;
  log: HTMLOListElement;
  idInput: HTMLInputElement;
}

const TABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class TableSession {
  private source: EventSource | undefined;
  private jwks: Promise<Jwks> | undefined;
  /** Entries are checked one at a time, in the order they arrive. */
  private queue: Promise<void> = Promise.resolve();
  private lastSeq = 0;
  private lastHash = GENESIS_PREV;
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
    this.view.log.replaceChildren();
    this.view.chain.textContent = '';
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
    this.view.log.prepend(this.entryElement(entry, problems));
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
