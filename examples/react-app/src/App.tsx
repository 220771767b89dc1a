// Roll a formula and show the roll as the client describes it (Roll.tsx): every term as written,
// every die with its marks, the arithmetic. A refused formula shows the API's code and message; a
// 429 shows when to try again.
import { type AdvantageState, describeRoll, isDiceError, type RollRequest } from '@fairdice/client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTRPC } from './dice.js';
import { Roll } from './Roll.js';

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
  const [asked, setAsked] = useState<RollRequest>({ formula });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request: RollRequest = { formula, advantage };
    setAsked(request);
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
      {roll.data && !roll.isError ? <Roll description={describeRoll(roll.data, asked)} /> : null}
    </main>
  );
}
