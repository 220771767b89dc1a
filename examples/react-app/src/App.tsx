// Roll a formula and show every die: kept dice plain, dropped dice struck through. A refused
// formula shows the API's code and message; a 429 shows when to try again.
import { type AdvantageState, type DieGroup, isDiceError, type RollRequest } from '@fairdice/client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTRPC } from './dice.js';

function Dice({ group }: { group: DieGroup }) {
  return (
    <li className="group" data-testid="group">
      <span className="label">
        {group.sign < 0 ? '−' : ''}
        {group.results.length}d{group.sides}
      </span>
      {group.results.map((face, index) => {
        const kept = group.keptFlags[index] === true;
        return (
          <span
            // Dice have no identity but their place in the throw.
            // biome-ignore lint/suspicious/noArrayIndexKey: the order of the results is the identity
            key={index}
            className={kept ? 'die kept' : 'die dropped'}
            data-testid="die"
            data-kept={kept}
            title={kept ? 'kept' : 'dropped'}
          >
            {face}
          </span>
        );
      })}
      <span className="subtotal">= {group.total}</span>
    </li>
  );
}

function Failure({ error }: { error: unknown }) {
  if (!isDiceError(error)) {
    return (
      <p className="error" role="alert" data-testid="error" data-code="network">
        The service could not be reached.
      </p>
    );
  }
  const { api } = error.data;
  return (
    <p className="error" role="alert" data-testid="error" data-code={api.code}>
      <code>{api.code}</code> {api.message}
      {api.code === 'rate_limited' && api.retryAfter !== undefined ? (
        <strong data-testid="retry-after" data-seconds={api.retryAfter}>
          {' '}
          Try again in {api.retryAfter} s.
        </strong>
      ) : null}
    </p>
  );
}

export function App() {
  const trpc = useTRPC();
  const health = useQuery(trpc.health.queryOptions());
  const roll = useMutation(trpc.rollWith.mutationOptions());
  const [formula, setFormula] = useState('4d6kh3');
  const [advantage, setAdvantage] = useState<AdvantageState>('normal');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request: RollRequest = { formula, advantage };
    roll.mutate(request);
  };

  return (
    <main>
      <h1>fairdice</h1>
      <p className="service" data-testid="service">
        {health.data ? `Service ${health.data.version} is up.` : health.isError ? '' : 'Asking the service…'}
      </p>
      <form onSubmit={submit}>
        <label>
          Formula{' '}
          <input name="formula" value={formula} onChange={(event) => setFormula(event.target.value)} />
        </label>
        <label>
          Advantage{' '}
          <select
            name="advantage"
            value={advantage}
            onChange={(event) => setAdvantage(event.target.value as AdvantageState)}
          >
            <option value="normal">normal</option>
            <option value="advantage">advantage</option>
            <option value="disadvantage">disadvantage</option>
          </select>
        </label>
        <button type="submit" disabled={roll.isPending}>
          Roll
        </button>
      </form>
      {roll.isError ? <Failure error={roll.error} /> : null}
      {roll.data && !roll.isError ? (
        <section data-testid="result">
          <p>
            <code>{roll.data.formula}</code> rolled <output data-testid="total">{roll.data.total}</output>
          </p>
          <ul className="groups">
            {roll.data.dice.map((group, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: groups follow the formula's order
              <Dice key={index} group={group} />
            ))}
          </ul>
          {roll.data.modifier !== 0 ? <p data-testid="modifier">modifier {roll.data.modifier}</p> : null}
        </section>
      ) : null}
    </main>
  );
}
