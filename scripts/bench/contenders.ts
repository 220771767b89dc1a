// The in-process contenders: fairdice's engine against @dice-roller/rpg-dice-roller on a
// cryptographic engine, and fairdice's pooled sampler against crypto.randomInt and Math.random.
import { randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import { cryptoRandom, ParseCache, roll } from '../../dist/index.js';
import type { MicroContender } from './micro.js';

// The CommonJS build: in the ES module build, random-js's nodeCrypto engine calls `require`, which
// does not exist there, so every roll on that engine throws.
const { DiceRoll, NumberGenerator } = createRequire(import.meta.url)(
  '@dice-roller/rpg-dice-roller',
) as typeof import('@dice-roller/rpg-dice-roller');

/**
 * rpg-dice-roller draws through random-js; its nodeCrypto engine reads node:crypto (a buffer of
 * 128 words per refill), as fairdice's sampler does. Checked here, so a broken engine fails loudly.
 */
export function useCryptoEngineForRpgDiceRoller(): void {
  NumberGenerator.generator.engine = NumberGenerator.engines.nodeCrypto;
  const word: unknown = NumberGenerator.generator.engine.next();
  if (typeof word !== 'number' || NumberGenerator.generator.engine !== NumberGenerator.engines.nodeCrypto) {
    throw new Error('rpg-dice-roller is not drawing from its nodeCrypto engine');
  }
}

/**
 * Parse and roll, every iteration. Uncached (the engine's own figure): the text goes through the
 * parser each time. Cached: the service's default, where a repeated text skips the parser.
 */
export function fairdiceRoll(formula: string, cached: boolean): MicroContender {
  const request = { formula };
  const options = { random: cryptoRandom, parseCache: new ParseCache({ maxEntries: cached ? 1000 : 0 }) };
  return {
    name: cached ? 'fairdiceCached' : 'fairdice',
    run(iterations) {
      let sum = 0;
      for (let i = 0; i < iterations; i++) sum += roll(request, options).total;
      return sum;
    },
  };
}

export function rpgDiceRollerRoll(formula: string): MicroContender {
  return {
    name: 'rpgDiceRoller',
    run(iterations) {
      let sum = 0;
      for (let i = 0; i < iterations; i++) sum += new DiceRoll(formula).total;
      return sum;
    },
  };
}

export function samplerContenders(sides: number): MicroContender[] {
  return [
    {
      name: 'pooledSampler',
      run(iterations) {
        let sum = 0;
        for (let i = 0; i < iterations; i++) sum += cryptoRandom.die(sides);
        return sum;
      },
    },
    {
      name: 'randomInt',
      run(iterations) {
        let sum = 0;
        for (let i = 0; i < iterations; i++) sum += randomInt(1, sides + 1);
        return sum;
      },
    },
    {
      name: 'mathRandom',
      run(iterations) {
        let sum = 0;
        for (let i = 0; i < iterations; i++) sum += Math.floor(Math.random() * sides) + 1;
        return sum;
      },
    },
  ];
}
