// A table in the page (docs/trust.md): create or join one (its id in the address to share), follow
// its rolls live over Server-Sent Events, and check each entry here with the library's own
// WebCrypto verifier (packages/client/src/verify.ts): its signature, its number and its link to
// the entry before. A gap or a broken link is shown, never hidden. It also keeps the latest signed
// head of each table it has seen (in localStorage, so across visits; docs/trust.md#signed-heads),
// verifies every head the stream sends, and warns when the log it holds is shorter than a head
// promises or forks from it. A sealed roll (docs/trust.md#sealed-rolls) shows as sealed (its
// number, time, formula, commitment and roller); the roller's page keeps its salt and reveal
// token (localStorage, per table and entry) and offers to reveal it; a reveal shows the roll and
// whether it opens the commitment already in the chain (the library's verifyReveal).
import { describeRoll } from '../packages/client/src/describe.js';
import {
  compareHeads,
  GENESIS_PREV,
  receiptHash,
  verifyEntry,
  verifyHead,
  verifyReveal,
} from '../packages/client/src/verify.js';
import type { Jwks, Receipt, RevealEntry, SealedEntry, SealedRoll, TableEntry, TableHead } from './types.js';

export interface TableView {
  status: HTMLElement;
  chain: HTMLElement;
  log: HTMLOListElement;
  idInput: HTMLInputElement;
  /** The latest signed head: its entries, time and key, and whether it verified. */
  head: HTMLElement;
  /** Empty, or why the log this page holds does not match a head (cut short, forked). */
  headWarning: HTMLElement;
  /** The "roll in secret" choice of the roll form: offered at a table that takes sealed rolls. */
  secretField: HTMLElement;
  /** What the table offers beyond rolling (from the OpenAPI document). */
  offers: { sealed: boolean };
  /** Called when a table is joined (its id), so other views of the table can follow. */
  onJoin?: (id: string) => void;
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
  /** Sealed entries this page holds, by sequence number: what a reveal is checked against. */
  private sealed = new Map<number, { entry: SealedEntry; revealedIn?: number }>();
  /** Sealed entries this page asked to reveal: their note takes the focus of the button it pressed. */
  private revealing = new Set<number>();
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
    this.sealed = new Map();
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
    this.view.secretField.hidden = !this.view.offers.sealed;
    this.view.onJoin?.(id);
    const source = new EventSource(`/v1/tables/${encodeURIComponent(id)}/events`);
    source.addEventListener('roll', (event) => {
      const entry = JSON.parse((event as MessageEvent<string>).data) as TableEntry;
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

  private async add(entry: TableEntry): Promise<void> {
    const seq = entry.seq ?? 0;
    if (seq <= this.lastSeq) return; // sent again after a reconnect
    const problems: string[] = [];
    const verified = await verifyEntry(entry, await this.keys());
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
    if ('commitment' in entry) {
      this.sealed.set(seq, { entry });
      this.view.log.prepend(this.sealedElement(entry, problems));
    } else if ('reveal' in entry) {
      this.view.log.prepend(this.revealElement(entry, problems, await this.opens(entry)));
    } else {
      this.view.log.prepend(this.entryElement(entry, problems));
    }
  }

  /**
   * Whether a reveal opens a sealed entry this page holds: its receipt and salt hash to that
   * entry's commitment and the receipt is that entry's roll (verifyReveal), once. The sealed
   * entry then says where it was revealed, and its roller's page forgets the secret.
   */
  private async opens(entry: RevealEntry): Promise<{ matched: boolean; why?: string }> {
    const target = this.sealed.get(entry.reveal.seq);
    if (target === undefined)
      return { matched: false, why: `entry ${entry.reveal.seq} is no sealed roll this page holds` };
    if (target.revealedIn !== undefined)
      return {
        matched: false,
        why: `entry ${entry.reveal.seq} was revealed already, by entry ${target.revealedIn}`,
      };
    const opened = await verifyReveal(target.entry, entry.reveal.receipt, entry.reveal.salt);
    if (!opened.valid) return { matched: false, why: opened.reason };
    target.revealedIn = entry.seq;
    if (this.id !== undefined) forgetSecret(this.id, entry.reveal.seq);
    const sealedItem = this.itemOf(entry.reveal.seq);
    if (sealedItem !== undefined) {
      sealedItem.dataset.revealedIn = String(entry.seq);
      const button = sealedItem.querySelector<HTMLButtonElement>('button.reveal');
      const note = span('revealed', `revealed in #${entry.seq}`);
      note.tabIndex = -1;
      if (button) {
        // Disabled while the reveal was asked, the button may have lost the focus to the body.
        const lost = document.activeElement === null || document.activeElement === document.body;
        const focused = document.activeElement === button || (this.revealing.has(entry.reveal.seq) && lost);
        button.replaceWith(note);
        if (focused) note.focus();
        this.revealing.delete(entry.reveal.seq);
      } else sealedItem.append(note);
    }
    return { matched: true };
  }

  private itemOf(seq: number): HTMLLIElement | undefined {
    return this.view.log.querySelector<HTMLLIElement>(`li.entry[data-seq="${seq}"]`) ?? undefined;
  }

  /**
   * Keeps what only the roller of a sealed roll gets (its salt and reveal token) in this browser,
   * per table and entry, and offers to reveal it.
   */
  keepSealed(sealed: SealedRoll): void {
    const { entry } = sealed;
    keepSecret(entry.table, entry.seq, { salt: sealed.salt, revealToken: sealed.revealToken });
    const item = entry.table === this.id ? this.itemOf(entry.seq) : undefined;
    if (
      item &&
      item.dataset.kind === 'sealed' &&
      item.dataset.revealedIn === undefined &&
      !item.querySelector('button.reveal')
    )
      item.append(this.revealButton(entry.seq));
  }

  private revealButton(seq: number): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'reveal';
    button.textContent = `Reveal roll #${seq}`;
    button.addEventListener('click', () => {
      void this.reveal(seq, button);
    });
    return button;
  }

  /** Asks the service to publish the sealed roll `seq` (its receipt and salt) with the token kept. */
  private async reveal(seq: number, button: HTMLButtonElement): Promise<void> {
    const id = this.id;
    const secret = id === undefined ? undefined : secretOf(id, seq);
    if (id === undefined || secret === undefined) {
      this.view.status.textContent = `This browser no longer holds the token that reveals roll #${seq}.`;
      button.remove();
      return;
    }
    button.disabled = true;
    button.textContent = `Revealing roll #${seq}…`;
    this.revealing.add(seq);
    let message: string | undefined;
    try {
      const response = await fetch(`/v1/tables/${encodeURIComponent(id)}/rolls/${seq}/reveal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ token: secret.revealToken }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        message = body.error?.message ?? `HTTP ${response.status}`;
      }
    } catch (error) {
      message = (error as Error).message;
    }
    // Revealed: the reveal entry arrives over the live feed and replaces the button.
    if (message === undefined) return;
    this.revealing.delete(seq);
    button.disabled = false;
    button.textContent = `Reveal roll #${seq}`;
    this.view.status.textContent = `Roll #${seq} was not revealed: ${message}`;
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
    const item = entryItem(entry, 'roll');
    item.dataset.total = String(entry.roll?.total);
    const head = entryHead(entry);
    // Who rolled it and what for, when the roll says (a request may carry `by` and `note`).
    const { by, note } = labelsOf(entry.request);
    if (by !== undefined) head.append(span('by', by));
    head.append(span('total', `= ${entry.roll?.total ?? '?'}`), validBadge(entry, problems), timeOf(entry));
    item.append(head);
    if (note !== undefined) item.append(span('note', note));
    // Its dice: the roll's description in its text form, from which the total is rebuilt.
    item.append(whatOf(textOf(entry)));
    if (problems.length > 0) item.append(span('why', problems.join('; ')));
    return item;
  }

  /** A sealed roll: its number, who, a sealed badge, time, what was asked and the commitment. */
  private sealedElement(entry: SealedEntry, problems: string[]): HTMLLIElement {
    const item = entryItem(entry, 'sealed');
    const head = entryHead(entry);
    const { by } = labelsOf(entry.request);
    if (by !== undefined) head.append(span('by', by));
    const sealedBadge = span('badge sealed', 'sealed');
    sealedBadge.title = 'Rolled and signed now; its dice stay hidden until its roller reveals them.';
    head.append(sealedBadge, validBadge(entry, problems), timeOf(entry));
    item.append(head, whatOf(askedText(entry.request)));
    const commitment = document.createElement('p');
    commitment.className = 'commitment';
    const hash = document.createElement('code');
    hash.title = entry.commitment;
    hash.textContent = `${entry.commitment.slice(0, 12)}…`;
    commitment.append('Commitment ', hash);
    item.append(commitment);
    if (problems.length > 0) item.append(span('why', problems.join('; ')));
    if (this.id !== undefined && secretOf(this.id, entry.seq) !== undefined)
      item.append(this.revealButton(entry.seq));
    return item;
  }

  /** A reveal: the roll it opens (who, total, note, dice) and whether it matches the commitment. */
  private revealElement(
    entry: RevealEntry,
    problems: string[],
    opened: { matched: boolean; why?: string },
  ): HTMLLIElement {
    const receipt = entry.reveal.receipt;
    const item = entryItem(entry, 'reveal');
    item.dataset.total = String(receipt.roll?.total);
    item.dataset.reveals = String(entry.reveal.seq);
    item.dataset.matched = String(opened.matched);
    const head = entryHead(entry);
    const { by, note } = labelsOf(receipt.request);
    if (by !== undefined) head.append(span('by', by));
    const matched = span(
      `badge match ${opened.matched ? 'valid' : 'invalid'}`,
      opened.matched ? `✓ matches #${entry.reveal.seq}` : `✗ does not open #${entry.reveal.seq}`,
    );
    matched.title = opened.matched
      ? `Its receipt and salt hash to the commitment of sealed roll #${entry.reveal.seq}.`
      : (opened.why ?? '');
    head.append(
      span('total', `= ${receipt.roll?.total ?? '?'}`),
      validBadge(entry, problems),
      matched,
      timeOf(entry),
    );
    item.append(head, span('reveals', `Reveals sealed roll #${entry.reveal.seq}`));
    if (note !== undefined) item.append(span('note', note));
    item.append(whatOf(textOf(receipt)));
    const why = [...problems, ...(opened.why === undefined ? [] : [opened.why])];
    if (why.length > 0) item.append(span('why', why.join('; ')));
    return item;
  }
}

const span = (className: string, text: string): HTMLSpanElement => {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
};

function entryItem(entry: TableEntry, kind: 'roll' | 'sealed' | 'reveal'): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'entry';
  item.dataset.seq = String(entry.seq);
  item.dataset.kind = kind;
  return item;
}

function entryHead(entry: TableEntry): HTMLParagraphElement {
  const head = document.createElement('p');
  head.className = 'entry-head';
  head.append(span('seq', `#${entry.seq}`));
  return head;
}

/** Whether the entry verified here (its signature, its place in the chain), and why not. */
function validBadge(entry: TableEntry, problems: string[]): HTMLSpanElement {
  const valid = problems.length === 0;
  const badge = span(`badge ${valid ? 'valid' : 'invalid'}`, valid ? '✓ verified' : '✗ invalid');
  badge.dataset.valid = String(valid);
  badge.title = valid ? `Signed by key ${entry.kid}` : problems.join('; ');
  return badge;
}

function timeOf(entry: TableEntry): HTMLTimeElement {
  const time = document.createElement('time');
  time.dateTime = entry.time;
  time.textContent = new Date(entry.time).toLocaleTimeString();
  return time;
}

function whatOf(text: string): HTMLElement {
  const what = document.createElement('code');
  what.className = 'what';
  what.textContent = text;
  return what;
}

/** What a sealed roll asked, as written: `1d20+5 with bonuses 2, 1d4, with advantage`. */
function askedText(request: SealedEntry['request']): string {
  let text = request.formula;
  if (request.bonuses !== undefined && request.bonuses.length > 0)
    text += ` with bonuses ${request.bonuses.join(', ')}`;
  if (request.advantage !== undefined && request.advantage !== 'normal')
    text += `, with ${request.advantage}`;
  return text;
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
function labelsOf(request: unknown): { by?: string; note?: string } {
  const { by: byValue, note: noteValue } = (request ?? {}) as { by?: unknown; note?: unknown };
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const labels: { by?: string; note?: string } = {};
  const by = text(byValue);
  const note = text(noteValue);
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

const SECRET_KEY = 'fairdice.sealed.';

/** What reveals a sealed roll: kept only by the browser that rolled it. */
interface Secret {
  salt: string;
  revealToken: string;
}

/** This visit's secrets too, for a browser whose storage is off. */
const secretsHere = new Map<string, Secret>();

function keepSecret(table: string, seq: number, secret: Secret): void {
  secretsHere.set(`${table}.${seq}`, secret);
  try {
    window.localStorage.setItem(`${SECRET_KEY}${table}.${seq}`, JSON.stringify(secret));
  } catch {
    // Storage off (a private window): the roll can be revealed only from the answer's token.
  }
}

function secretOf(table: string, seq: number): Secret | undefined {
  const here = secretsHere.get(`${table}.${seq}`);
  if (here !== undefined) return here;
  try {
    const text = window.localStorage.getItem(`${SECRET_KEY}${table}.${seq}`);
    const secret = text === null ? undefined : (JSON.parse(text) as Partial<Secret>);
    return typeof secret?.revealToken === 'string' && typeof secret.salt === 'string'
      ? { salt: secret.salt, revealToken: secret.revealToken }
      : undefined;
  } catch {
    return undefined;
  }
}

function forgetSecret(table: string, seq: number): void {
  secretsHere.delete(`${table}.${seq}`);
  try {
    window.localStorage.removeItem(`${SECRET_KEY}${table}.${seq}`);
  } catch {
    // Nothing kept.
  }
}
