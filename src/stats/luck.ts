// The luck report's arithmetic: a roll's mid-P percentile under its exact
// distribution, the exact variance of that percentile, and the Z-test that dice are fair.
// Counts are exact integers over one denominator; only the final z and p are doubles.

/** One outcome of a distribution: its total and how many of `denominator` ways give it. */
export interface LuckOutcome {
  total: number;
  count: bigint;
}

/** u = P(X < x) + P(X = x)/2, exactly as numerator / (2 · denominator), then as a double. */
export function midP(outcomes: readonly LuckOutcome[], denominator: bigint, x: number): number {
  let twice = 0n;
  for (const o of outcomes) {
    if (o.total < x) twice += 2n * o.count;
    else if (o.total === x) twice += o.count;
  }
  return Number(twice) / Number(2n * denominator);
}

/** Var(u) = (1 − Σ p_k³)/12, with Σ p_k³ summed exactly as Σ c_k³ / d³. */
export function midPVariance(outcomes: readonly LuckOutcome[], denominator: bigint): number {
  let cubes = 0n;
  for (const o of outcomes) cubes += o.count ** 3n;
  const d3 = denominator ** 3n;
  return Number(d3 - cubes) / Number(d3) / 12;
}

/** Z = (Σu − n/2) / sqrt(Σ Var) and its two-sided p-value; null when nothing was rated. */
export function fairDiceTest(
  us: readonly number[],
  variances: readonly number[],
): { z: number; p: number } | null {
  const sumVar = variances.reduce((a, b) => a + b, 0);
  if (us.length === 0 || sumVar <= 0) return null;
  const z = (us.reduce((a, b) => a + b, 0) - us.length / 2) / Math.sqrt(sumVar);
  return { z, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}

/** erfc by the Numerical Recipes Chebyshev fit (relative error below 1.2e-7). */
function erfc(x: number): number {
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const y =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851973 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? y : 2 - y;
}
