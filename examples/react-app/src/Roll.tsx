// A roll drawn from the client's description of it (describeRoll, docs/client.md): each term as
// written with every die and its marks, the numbers, operators, functions and groups between
// them in formula order, and the one-line text form to copy.
import {
  countsText,
  type DescribedDie,
  type DiceTerm,
  faceText,
  piecesOf,
  type RollDescription,
  type RollNode,
} from '@fairdice/client';
import type { ReactNode } from 'react';

/** The words a die's marks say, for its tooltip and for screen readers. */
function markWords(die: DescribedDie): string {
  const marks = new Set([...die.marks, ...die.throws.flatMap((thrown) => thrown.marks)]);
  return [...marks].join(', ');
}

function Die({ die, term }: { die: DescribedDie; term: DiceTerm }) {
  const counted = die.throws.filter((thrown) => !thrown.marks.includes('rerolled'));
  const success = die.marks.includes('success') || counted.some((t) => t.marks.includes('success'));
  const failure = die.marks.includes('failure') || counted.some((t) => t.marks.includes('failure'));
  const classes = ['die', die.kept ? 'kept' : 'dropped', success ? 'success' : '', failure ? 'failure' : ''];
  return (
    <span
      className={classes.filter(Boolean).join(' ')}
      data-testid="die"
      data-kept={die.kept}
      data-marks={markWords(die)}
      title={markWords(die)}
    >
      {die.throws.map((thrown, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: throws have no identity but their order
        <span key={index} className={thrown.marks.includes('rerolled') ? 'throw rerolled' : 'throw'}>
          {index > 0 ? (die.throws[index - 1]!.marks.includes('rerolled') ? '→' : '+') : null}
          {faceText(thrown.value, term.fate)}
        </span>
      ))}
      {die.marks.includes('compounded') && counted.length > 1 ? ` = ${die.value}` : null}
      {success ? ' ✓' : null}
      {failure ? ' ✗' : null}
      {die.marks.includes('crit') ? ' crit' : null}
      {die.marks.includes('fumble') ? ' fumble' : null}
    </span>
  );
}

function Term({ term }: { term: DiceTerm }) {
  const worth =
    term.successes === undefined ? `= ${Math.abs(term.total)}` : countsText(term.successes, term.failures);
  return (
    <span className="term" data-testid="term">
      <code>{term.notation}</code>
      {term.label === undefined ? null : <em> {term.label}</em>}{' '}
      {term.dice.map((die, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: dice have no identity but their place in the throw
        <Die key={index} die={die} term={term} />
      ))}
      {term.multiplier === 1 ? null : ` ×${term.multiplier}`} <span className="subtotal">{worth}</span>
    </span>
  );
}

const SHOWN: Record<string, string> = { '*': '×', '/': '÷', '-': '−', '%': 'mod' };

function Node({ node, unsigned = false }: { node: RollNode; unsigned?: boolean }): ReactNode {
  switch (node.kind) {
    case 'dice':
      return <Term term={node.term} />;
    case 'number':
      return <span className="number">{unsigned ? -node.value : node.value}</span>;
    case 'function':
      return (
        <span className="call">
          {node.name}(
          {node.arguments.map((argument, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: arguments follow the formula's order
            <span key={index}>
              {index > 0 ? ', ' : null}
              <Node node={argument} />
            </span>
          ))}
          )
        </span>
      );
    case 'group':
      return (
        <span className="group-box">
          {'{'}
          {node.items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items follow the formula's order
            <span key={index} className={item.kept ? 'item' : 'item dropped'} data-kept={item.kept}>
              {index > 0 ? ', ' : null}
              <Node node={item.node} />
              {item.kept ? null : ' dropped'}
              {item.success ? ' ✓' : null}
              {item.failure ? ' ✗' : null}
            </span>
          ))}
          {'}'}
          <code>{node.modifiers}</code>
        </span>
      );
    case 'operation':
      return piecesOf(node).map((piece, index) =>
        piece.kind === 'operator' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces follow the formula's order
          <span key={index} className="operator">
            {` ${SHOWN[piece.operator] ?? piece.operator} `}
          </span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces follow the formula's order
          <span key={index}>
            {piece.parentheses ? '(' : null}
            <Node node={piece.node} unsigned={piece.unsigned} />
            {piece.parentheses ? ')' : null}
          </span>
        ),
      );
  }
}

export function Roll({ description }: { description: RollDescription }) {
  return (
    <section data-testid="result">
      <p className="flow">
        <Node node={description.root} />
      </p>
      <p>
        Total <output data-testid="total">{description.total}</output>
        {description.counting === undefined
          ? null
          : ` (${countsText(description.counting.successes, description.counting.failures)})`}
      </p>
      <p>
        <code data-testid="roll-text">{description.text}</code>
      </p>
    </section>
  );
}
