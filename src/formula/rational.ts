// Exact rational numbers for formula arithmetic (docs/language.md, "Arithmetic is exact"):
// `(2d6+3)/2` must round exactly, and `floor(7/2*2)` must be 7, not a floating-point accident.
// Hand-written on BigInt instead of a dependency: the language needs only + - * /, comparison
// and four roundings, about sixty lines, and the engine stays free of runtime dependencies.

const ZERO = 0n;
const ONE = 1n;

function gcd(a: bigint, b: bigint): bigint {
  let x = a < ZERO ? -a : a;
  let y = b < ZERO ? -b : b;
  while (y !== ZERO) [x, y] = [y, x % y];
  return x;
}

/** An exact fraction n/d, always reduced, with d > 0. Immutable. */
export class Rational {
  private constructor(
    readonly numerator: bigint,
    readonly denominator: bigint,
  ) {}

  static of(numerator: bigint | number, denominator: bigint | number = ONE): Rational {
    let n = BigInt(numerator);
    let d = BigInt(denominator);
    if (d === ZERO) throw new RangeError('division by zero');
    if (d < ZERO) {
      n = -n;
      d = -d;
    }
    const g = gcd(n, d);
    return g > ONE ? new Rational(n / g, d / g) : new Rational(n, d);
  }

  add(other: Rational): Rational {
    return Rational.of(
      this.numerator * other.denominator + other.numerator * this.denominator,
      this.denominator * other.denominator,
    );
  }

  sub(other: Rational): Rational {
    return this.add(other.neg());
  }

  mul(other: Rational): Rational {
    return Rational.of(this.numerator * other.numerator, this.denominator * other.denominator);
  }

  /** Throws RangeError on a zero divisor (the parser refuses one before any roll). */
  div(other: Rational): Rational {
    return Rational.of(this.numerator * other.denominator, this.denominator * other.numerator);
  }

  /** `this ** exponent` for an integer exponent >= 0 (`0 ** 0` is 1). */
  pow(exponent: number): Rational {
    const e = BigInt(exponent);
    return new Rational(this.numerator ** e, this.denominator ** e);
  }

  /** The remainder of truncating division: `this - other * trunc(this / other)`, the sign of `this`. */
  mod(other: Rational): Rational {
    const quotient = this.div(other);
    const truncated = quotient.numerator < ZERO ? quotient.ceil() : quotient.floor();
    return this.sub(other.mul(truncated));
  }

  neg(): Rational {
    return new Rational(-this.numerator, this.denominator);
  }

  abs(): Rational {
    return this.numerator < ZERO ? this.neg() : this;
  }

  /** -1, 0 or 1 as this is below, equal to or above `other`. */
  compare(other: Rational): number {
    const left = this.numerator * other.denominator;
    const right = other.numerator * this.denominator;
    return left < right ? -1 : left > right ? 1 : 0;
  }

  isZero(): boolean {
    return this.numerator === ZERO;
  }

  isInteger(): boolean {
    return this.denominator === ONE;
  }

  /** Rounded towards minus infinity. */
  floor(): Rational {
    if (this.isInteger()) return this;
    const q = this.numerator / this.denominator; // BigInt division truncates towards zero
    return new Rational(this.numerator < ZERO ? q - ONE : q, ONE);
  }

  ceil(): Rational {
    return this.neg().floor().neg();
  }

  /** Rounded to the nearest integer, halves away from zero (`round(-2.5)` is -3). */
  round(): Rational {
    const half = Rational.of(1, 2);
    return this.numerator < ZERO ? this.neg().add(half).floor().neg() : this.add(half).floor();
  }

  /** The nearest double (exact for integers up to 2^53). */
  toNumber(): number {
    if (this.isInteger()) return Number(this.numerator);
    return Number(this.numerator) / Number(this.denominator);
  }

  /** "n/d", or "n" for an integer. */
  toString(): string {
    return this.isInteger() ? `${this.numerator}` : `${this.numerator}/${this.denominator}`;
  }
}
