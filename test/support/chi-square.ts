// Chi-square goodness of fit for the fairness tests: the survival function and the critical
// value at a given alpha (1e-6 throughout: it detects a byte % 6 bias and almost never fails a
// fair source).

export const ALPHA = 1e-6;

/** ln Γ(z) by Lanczos (g = 7, n = 9): about 15 significant digits for z > 0. */
function lnGamma(z: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const x = z - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Regularized upper incomplete gamma Q(a, x) (series below a+1, continued fraction above). */
function gammaQ(a: number, x: number): number {
  const lnFront = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 10_000 && Math.abs(term) > Math.abs(sum) * 1e-16; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * Math.exp(lnFront);
  }
  // Lentz's method.
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lnFront) * h;
}

/** P(X >= x) for X chi-square with `dof` degrees of freedom. */
export const chiSquareSurvival = (x: number, dof: number): number => gammaQ(dof / 2, x / 2);

/** The x with survival `alpha`, by bisection. */
export function chiSquareCritical(dof: number, alpha: number): number {
  let low = 0;
  let high = 10_000;
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    if (chiSquareSurvival(mid, dof) > alpha) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The chi-square statistic of observed counts against expected counts. */
export function chiSquareStatistic(observed: readonly number[], expected: readonly number[]): number {
  let statistic = 0;
  for (let i = 0; i < expected.length; i++) statistic += (observed[i]! - expected[i]!) ** 2 / expected[i]!;
  return statistic;
}
