// The dice modifiers beyond keep, explode and reroll (docs/language.md, "Modifiers"): success
// pools, compounding, explode points, clamps, Fate and custom dice, critical ranges, labels and
// `throws`, not-equal points, !!p, bare drop, several keep/drop modifiers, unique dice and
// matching sets, rolled with scripted faces so every value, flag and count is known; each limit
// at and past its bound. A custom or Fate die asks the source for a die of as many sides as it
// has faces and shows the face at that position.

import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/index.js';
import { formulaError, group, rollWith } from '../support/rolls.js';

describe('success counting', () => {
  it('6d10>=8 counts kept values meeting the point; the total is the count', () => {
    const g = group(rollWith('6d10>=8', [8, 4, 10, 1, 9, 3]));
    expect(g).toMatchObject({ successes: 3, total: 3, kept: [10, 9, 8, 4, 3, 1] });
    expect(g).not.toHaveProperty('failures');
  });

  it('6d10>=8f1 subtracts failures', () => {
    const g = group(rollWith('6d10>=8f1', [8, 4, 10, 1, 9, 3]));
    expect(g).toMatchObject({ successes: 3, failures: 1, total: 2 });
  });

  it('the total may go negative, and carries sign and multiplier', () => {
    expect(group(rollWith('3d10>=8f<=2', [1, 2, 9])).total).toBe(-1);
    const r = rollWith('10-2d6>5x3', [6, 6]);
    expect(group(r)).toMatchObject({ successes: 2, total: -6, sign: -1, multiplier: 3 });
    expect(r.total).toBe(4);
  });

  it('every compare point works for successes and failures', () => {
    const faces = [1, 2, 3, 4, 5, 6];
    const count = (formula: string) => group(rollWith(formula, faces)).successes;
    expect(count('6d6=3')).toBe(1);
    expect(count('6d6<3')).toBe(2);
    expect(count('6d6<=3')).toBe(3);
    expect(count('6d6>3')).toBe(3);
    expect(count('6d6>=3')).toBe(4);
    expect(group(rollWith('6d6>4f=2', faces)).failures).toBe(1);
  });

  it('a point every face meets, or none, is allowed', () => {
    expect(group(rollWith('6d10>=1', [1, 2, 3, 4, 5, 6])).successes).toBe(6);
    expect(group(rollWith('2d6>6', [6, 6])).successes).toBe(0);
  });

  it('counts only kept dice, never rerolled-away throws', () => {
    const g = group(rollWith('3d10>=8kh2', [9, 10, 8]));
    expect(g).toMatchObject({ keptFlags: [true, true, false], successes: 2 });
    const r = group(rollWith('2d10>=8r10', [10, 3, 9]));
    expect(r).toMatchObject({ results: [10, 3, 9], keptFlags: [false, true, true], successes: 1 });
  });

  it('without compounding, every throw of an explosion chain counts on its own (10-again)', () => {
    const g = group(rollWith('2d10>=8!', [10, 9, 2]));
    expect(g.results).toEqual([10, 9, 2]);
    expect(g.successes).toBe(2);
  });

  it('with compounding, the merged value is compared once', () => {
    const g = group(rollWith('2d10>=8!!', [10, 9, 2]));
    expect(g).toMatchObject({ results: [19, 2], compounded: true, successes: 1 });
  });

  it('a compare point after r, ro, !, !p, !!, f, cs or cf belongs to that modifier', () => {
    const g = group(rollWith('2d6r>=5', [5, 2, 3]));
    expect(g).not.toHaveProperty('successes');
    expect(g.results).toEqual([5, 2, 3]);
    expect(group(rollWith('2d6>=5r1', [1, 5, 6])).successes).toBe(2);
    expect(group(rollWith('2d6r1>=5', [1, 5, 6])).successes).toBe(2);
  });

  it('f needs a success point; each point at most once', () => {
    const error = formulaError('6d10f1');
    expect(error.column).toBe(5);
    expect(error.message).toMatch(/success point/);
    expect(formulaError('6d10>=8>=9').message).toMatch(/at most one success point/);
    expect(formulaError('6d10>=8f1f2').message).toMatch(/at most one failure point/);
    expect(formulaError('6d10>=8f').expected).toEqual(['a compare point for f']);
  });
});

describe('explode on a compare point, penetrate, compound', () => {
  it('5d10!>=9 explodes on 9 or 10', () => {
    const g = group(rollWith('5d10!>=9', [9, 3, 10, 9, 1, 2, 4, 5]));
    expect(g.results).toEqual([9, 3, 10, 9, 1, 2, 4, 5]);
    expect(g.total).toBe(43);
  });

  it('1d6!p=6 penetrates on 6; !p and ! take every compare point', () => {
    expect(group(rollWith('1d6!p=6', [6, 6, 2])).results).toEqual([6, 5, 1]);
    expect(group(rollWith('1d6!<2', [1, 1, 5])).results).toEqual([1, 1, 5]);
    expect(group(rollWith('1d6!5', [5, 6])).results).toEqual([5, 6]);
  });

  it('3d6!! merges each chain into one value; throws list every throw', () => {
    const g = group(rollWith('3d6!!', [6, 2, 3, 6, 6, 1]));
    expect(g).toMatchObject({
      results: [8, 3, 13],
      kept: [13, 8, 3],
      keptFlags: [true, true, true],
      total: 24,
    });
    expect(g.compounded).toBe(true);
    expect(g.throws).toEqual([
      { die: 0, kind: 'roll', value: 6 },
      { die: 0, kind: 'explode', value: 2 },
      { die: 1, kind: 'roll', value: 3 },
      { die: 2, kind: 'roll', value: 6 },
      { die: 2, kind: 'explode', value: 6 },
      { die: 2, kind: 'explode', value: 1 },
    ]);
  });

  it('2d10!!>=9 compounds on a compare point; keep/drop ranks merged values', () => {
    const g = group(rollWith('2d10!!>=9kh1', [9, 2, 8]));
    expect(g).toMatchObject({ results: [11, 8], keptFlags: [true, false], total: 11 });
  });

  it('compounding with rerolls: one value per die, the rerolled-away throws only in throws', () => {
    const g = group(rollWith('2d6r1!!', [1, 6, 2, 4]));
    expect(g.results).toEqual([8, 4]);
    expect(g.throws).toEqual([
      { die: 0, kind: 'roll', value: 1 },
      { die: 0, kind: 'reroll', value: 6 },
      { die: 0, kind: 'explode', value: 2 },
      { die: 1, kind: 'roll', value: 4 },
    ]);
  });

  it('a compounded chain stops at 100 extras', () => {
    const g = group(rollWith('1d6!!', new Array(1 + LIMITS.explodeCap).fill(6)));
    expect(g.results).toEqual([606]);
    expect(g.throws).toHaveLength(101);
  });

  it('an explode point every value meets is refused; one no value meets never explodes', () => {
    expect(formulaError('1d10!>0').column).toBe(5);
    expect(formulaError('2d6!!>=1').code).toBe('invalid_formula');
    expect(group(rollWith('2d6!>6', [6, 6])).results).toEqual([6, 6]);
  });

  it('explosions are tested on the clamped value: 2d6min6! is refused, 2d6max4! never explodes', () => {
    expect(formulaError('2d6min6!').message).toMatch(/explode/);
    expect(group(rollWith('2d6max4!', [6, 6])).results).toEqual([4, 4]);
    expect(group(rollWith('1d6max4!>=4', [5, 2])).results).toEqual([4, 2]);
  });
});

describe('min and max clamps', () => {
  it('2d6min3: a throw below 3 counts as 3 (Great Weapon Fighting)', () => {
    const g = group(rollWith('2d6min3', [1, 5]));
    expect(g).toMatchObject({ results: [3, 5], total: 8 });
    expect(g).not.toHaveProperty('throws');
  });

  it('max clamps from above; min and max together', () => {
    expect(group(rollWith('3d6max4', [6, 2, 4])).results).toEqual([4, 2, 4]);
    expect(group(rollWith('2d6min2max5', [1, 6])).results).toEqual([2, 5]);
  });

  it('rerolls test the clamped value, and throws keep the face that came up', () => {
    const g = group(rollWith('1d6min3r3', [1, 2, 5]));
    expect(g.results).toEqual([3, 3, 5]);
    expect(g.throws).toEqual([
      { die: 0, kind: 'roll', value: 3, face: 1 },
      { die: 0, kind: 'reroll', value: 3, face: 2 },
      { die: 0, kind: 'reroll', value: 5 },
    ]);
    expect(formulaError('1d6min3r<=3max3').code).toBe('invalid_formula');
  });

  it('a clamp outside the faces, or min above max, is refused', () => {
    expect(formulaError('2d6min7').column).toBe(4);
    expect(formulaError('2d6min0').code).toBe('invalid_formula');
    expect(formulaError('2d6max0').code).toBe('invalid_formula');
    expect(formulaError('2d6min5max3').message).toMatch(/min cannot be above max/);
    expect(group(rollWith('2d6min6', [1, 2])).total).toBe(12);
    expect(group(rollWith('2d6max1', [6, 2])).total).toBe(2);
  });

  it('natural flags read the face before clamping', () => {
    expect(group(rollWith('1d20min10', [1]))).toMatchObject({ results: [10], naturalLow: true });
    expect(group(rollWith('1d20max15', [20]))).toMatchObject({ results: [15], naturalHigh: true });
  });
});

describe('Fate and custom dice', () => {
  it('4dF: faces -1, 0, +1; sides 3 and a faces field', () => {
    const g = group(rollWith('4dF', [1, 2, 3, 3]));
    expect(g).toMatchObject({ sides: 3, faces: [-1, 0, 1], results: [-1, 0, 1, 1], total: 1 });
    expect(group(rollWith('df', [1])).faces).toEqual([-1, 0, 1]);
    expect(group(rollWith('2DF', [2, 2])).total).toBe(0);
  });

  it('d{1,1,2,3,5,8}: listed faces, repeats allowed, whitespace inside the braces', () => {
    const g = group(rollWith('3d{1,1,2,3,5,8}', [1, 2, 6]));
    expect(g).toMatchObject({
      sides: 6,
      faces: [1, 1, 2, 3, 5, 8],
      results: [1, 1, 8],
      kept: [8, 1, 1],
      total: 10,
    });
    expect(group(rollWith('d{ -2 , 0,4 }', [1])).results).toEqual([-2]);
  });

  it('the largest face is the top face and the smallest the bottom face', () => {
    expect(group(rollWith('1d{3,9,-1}', [2]))).toMatchObject({ naturalHigh: true, naturalLow: false });
    expect(group(rollWith('1d{3,9,-1}', [3]))).toMatchObject({ naturalHigh: false, naturalLow: true });
    expect(group(rollWith('1dF', [3])).naturalHigh).toBe(true);
    expect(group(rollWith('2d{1,2,9}!', [3, 1, 2])).results).toEqual([9, 1, 2]);
  });

  it('clamps, success points and negative compare values work on them', () => {
    expect(group(rollWith('d{1,5}min3', [1])).results).toEqual([3]);
    expect(group(rollWith('4dF>=1', [3, 3, 2, 1])).successes).toBe(2);
    expect(group(rollWith('4dF=-1', [3, 3, 2, 1])).successes).toBe(1);
    expect(group(rollWith('2dFr<0', [1, 3, 2])).results).toEqual([-1, 1, 0]);
    expect(formulaError('d{1,5}min6').code).toBe('invalid_formula');
    expect(formulaError('4dFmin-2').code).toBe('invalid_formula');
    expect(group(rollWith('4dFmin0', [1, 1, 3, 2])).results).toEqual([0, 0, 1, 0]);
  });

  it('1 to 100 faces (the 200-character limit binds first), each at most 1,000,000 in absolute value', () => {
    const most = `d{${'1,'.repeat(98)}9}`;
    expect(most).toHaveLength(LIMITS.formulaMaxLength);
    expect(group(rollWith(most, [99]))).toMatchObject({ sides: 99, results: [9] });
    expect(group(rollWith('d{7}', [1])).results).toEqual([7]);
    expect(formulaError('d{1000001}').column).toBe(2);
    expect(formulaError('d{-1000001}').code).toBe('invalid_formula');
    expect(group(rollWith('d{-1000000}', [1])).total).toBe(-1000000);
    expect(formulaError('d{}').expected).toEqual(['a face value']);
    expect(formulaError('d{1,2').expected).toEqual(['a comma or }']);
  });

  it('a condition every face meets is refused on them too', () => {
    expect(formulaError('d{5,5}!').code).toBe('invalid_formula');
    expect(formulaError('dFr>=-1').code).toBe('invalid_formula');
  });
});

describe('critical ranges', () => {
  it('1d20cs>=19: a kept 19 is a natural high', () => {
    expect(group(rollWith('1d20cs>=19', [19])).naturalHigh).toBe(true);
    expect(group(rollWith('1d20cs>=19', [18])).naturalHigh).toBe(false);
    expect(group(rollWith('1d20cs>=19', [20])).naturalHigh).toBe(true);
  });

  it('cf widens naturalLow; both keep the one-kept-die rule', () => {
    expect(group(rollWith('1d20cf<=2', [2])).naturalLow).toBe(true);
    expect(group(rollWith('1d20cf<=2', [1])).naturalLow).toBe(true);
    expect(group(rollWith('2d20cs>=19', [19, 19])).naturalHigh).toBe(false);
    expect(group(rollWith('2d20cs>=19kh1', [3, 19])).naturalHigh).toBe(true);
  });

  it('cs and cf need a compare point; each at most once', () => {
    const error = formulaError('1d20cs');
    expect(error.column).toBe(7);
    expect(error.expected).toEqual(['a compare point for cs or cf']);
    expect(formulaError('1d20cs20cs19').message).toMatch(/at most one critical success/);
  });
});

describe('labels', () => {
  it('2d6[fire]+1d4[cold] labels each group', () => {
    const r = rollWith('2d6[fire]+1d4[cold]', [1, 2, 3]);
    expect(r.dice.map((g) => g.label)).toEqual(['fire', 'cold']);
    expect(r.total).toBe(6);
  });

  it("a label may hold letters, digits, spaces, _ ' - up to 32 characters", () => {
    expect(group(rollWith("1d6[Bob's fire_2-b]", [1])).label).toBe("Bob's fire_2-b");
    expect(group(rollWith(`1d6[${'a'.repeat(32)}]`, [1])).label).toHaveLength(32);
    expect(formulaError(`1d6[${'a'.repeat(33)}]`).column).toBe(37);
    expect(formulaError('1d6[]').code).toBe('invalid_formula');
    expect(formulaError('1d6[a<b]').message).not.toMatch(/</);
  });

  it('the label comes after the modifiers; a tag may still follow', () => {
    const r = rollWith({ formula: '4d6kh3[str] fire', tags: ['fire'] }, [1, 2, 3, 4]);
    expect(group(r).label).toBe('str');
    expect(r.tag).toBe('fire');
    expect(formulaError('2d6[fire]kh1').code).toBe('invalid_formula');
  });
});

describe('throws', () => {
  it('2d6ro1: a rerolled-away throw is a reroll, not a dropped die', () => {
    const g = group(rollWith('2d6ro1', [1, 5, 6]));
    expect(g).toMatchObject({ results: [1, 5, 6], keptFlags: [false, true, true] });
    expect(g.throws).toEqual([
      { die: 0, kind: 'roll', value: 1 },
      { die: 0, kind: 'reroll', value: 5 },
      { die: 1, kind: 'roll', value: 6 },
    ]);
  });

  it('4d6!kh3: the dice were 5, 6+5, 4 and 6+1', () => {
    const g = group(rollWith('4d6!kh3', [5, 6, 5, 4, 6, 1]));
    expect(g.throws?.map((t) => [t.die, t.kind])).toEqual([
      [0, 'roll'],
      [1, 'roll'],
      [1, 'explode'],
      [2, 'roll'],
      [3, 'roll'],
      [3, 'explode'],
    ]);
    expect(g.keptFlags).toEqual([true, true, true, false, true, true]);
  });

  it('a penetrated extra carries the face that came up', () => {
    expect(group(rollWith('1d6!p', [6, 1])).throws).toEqual([
      { die: 0, kind: 'roll', value: 6 },
      { die: 0, kind: 'explode', value: 0, face: 1 },
    ]);
  });

  it('appear on every term written with r, ro, !, !p or !!, even with no second throw', () => {
    for (const formula of ['1d6r1', '1d6ro1', '1d6!', '1d6!p', '1d6!!']) {
      expect(group(rollWith(formula, [3])).throws).toEqual([{ die: 0, kind: 'roll', value: 3 }]);
    }
    for (const formula of ['1d6', '1d6kh1', '1d6min2', '1d6>3', '1dF', '1d6[x]', '1d6cs>5']) {
      expect(group(rollWith(formula, [3]))).not.toHaveProperty('throws');
    }
  });
});

describe('order of application and written order', () => {
  it('modifiers apply in the fixed order whatever the written order', () => {
    const faces = [1, 6, 2, 3, 5, 4];
    const a = group(rollWith('4d6min2r2!kh3>=4f2x2', faces));
    const b = group(rollWith('4d6x2f2>=4kh3!r2min2', faces));
    expect(a).toEqual(b);
    // die 0: 1->2 rerolled, 6 explodes into 2 => 8; die 1: 3; die 2: 5; die 3: 4.
    expect(a.results).toEqual([2, 6, 2, 3, 5, 4]);
    expect(a.keptFlags).toEqual([false, true, true, false, true, true]);
    expect(a).toMatchObject({ successes: 3, failures: 1, total: 4 });
  });

  it('plain sums gain no field of the other modifiers', () => {
    const g = group(rollWith('4d6kh3', [1, 2, 3, 4]));
    expect(Object.keys(g)).toEqual([
      'sides',
      'sign',
      'results',
      'kept',
      'keptFlags',
      'multiplier',
      'total',
      'naturalHigh',
      'naturalLow',
    ]);
  });

  it('2d6r-1 is still 2d6r minus 1', () => {
    const r = rollWith('2d6r-1', [1, 3, 4]);
    expect(r.modifiers).toEqual([-1]);
    expect(r.total).toBe(6);
  });
});

describe('not equal <>N', () => {
  it('counts successes not equal to N', () => {
    const r = rollWith('6d10<>1', [1, 2, 1, 3, 4, 5]);
    expect(group(r).successes).toBe(4);
    expect(r.total).toBe(4);
  });
  it('explodes on every value but N', () => {
    // First die 4: no extra; second die 3 explodes, its extra 4 stops the chain.
    const r = rollWith('2d6!<>4', [4, 3, 4]);
    expect(group(r).results).toEqual([4, 3, 4]);
    expect(r.total).toBe(11);
  });
  it('rerolls while not N; a condition every value meets is refused', () => {
    expect(rollWith('1d6r<>6', [2, 5, 6]).total).toBe(6);
    expect(formulaError('1d10!<>11').message).toMatch(/Every face of a d10 meets this condition/);
    expect(formulaError('1d6r<>0').message).toMatch(/never settle/);
  });
  it('!=N after a dice term stays explode on =N', () => {
    expect(rollWith('1d6!=2', [2, 2, 5]).total).toBe(9);
  });
});

describe('compounding penetration !!p', () => {
  it('merges a chain, each extra recorded minus 1 after its test', () => {
    const r = rollWith('2d6!!p', [6, 6, 2, 3]);
    expect(group(r).results).toEqual([12, 3]);
    expect(group(r).compounded).toBe(true);
    expect(group(r).throws).toEqual([
      { die: 0, kind: 'roll', value: 6 },
      { die: 0, kind: 'explode', value: 5, face: 6 },
      { die: 0, kind: 'explode', value: 1, face: 2 },
      { die: 1, kind: 'roll', value: 3 },
    ]);
    expect(r.total).toBe(15);
  });
  it('with a compare point', () => {
    expect(rollWith('1d6!!p>4', [5, 5, 1]).total).toBe(9);
    expect(rollWith('1d6!!P>4', [4]).total).toBe(4);
  });
  it('at most one explode of any kind', () => {
    expect(formulaError('1d6!!p!').message).toMatch(/explodes .* at most once/);
  });
});

describe('bare drop dN and several keep/drop modifiers', () => {
  it('dN is drop lowest N, ties dropping the earlier die', () => {
    const r = rollWith('4d6d1', [3, 1, 4, 1]);
    expect(group(r).keptFlags).toEqual([true, false, true, true]);
    expect(r.total).toBe(8);
    expect(rollWith('4d6D2', [3, 1, 4, 1]).total).toBe(7);
  });
  it('dis and dh stay themselves', () => {
    expect(rollWith('2d20dis', [5, 17]).total).toBe(5);
    expect(rollWith('3d6dh1', [5, 6, 2]).total).toBe(7);
  });
  it('each modifier ranks all the dice; a die counts only when none drops it', () => {
    const r = rollWith('4d10dh1dl2', [2, 8, 6, 4]);
    expect(group(r).keptFlags).toEqual([false, false, true, false]);
    expect(r.total).toBe(6);
    // k1 keeps the first 7, dh1 drops that same die: nothing is left.
    const none = rollWith('3d10k1dh1', [5, 7, 7]);
    expect(group(none).kept).toEqual([]);
    expect(none.total).toBe(0);
    expect(rollWith('5d6kh4kl3', [6, 5, 4, 3, 2]).total).toBe(7);
  });
  it('each distinct modifier at most once; adv/dis stand alone', () => {
    expect(formulaError('4d6kh1kh2').message).toMatch(/at most one keep highest/);
    expect(formulaError('4d6dl1d1').message).toMatch(/at most one drop lowest/);
    expect(formulaError('2d20advkh1').message).toMatch(/adv and dis cannot be combined/);
    expect(formulaError('2d20dl1dis').message).toMatch(/adv and dis cannot be combined/);
  });
});

describe('unique u / uo / uP / uoP', () => {
  it('rerolls a die while it repeats an earlier die of the term', () => {
    const r = rollWith('4d6u', [2, 2, 3, 2, 5, 3, 1]);
    expect(group(r).results).toEqual([2, 2, 3, 2, 5, 3, 1]);
    expect(group(r).keptFlags).toEqual([true, false, true, false, true, false, true]);
    expect(group(r).throws!.map((t) => t.kind)).toEqual([
      'roll',
      'roll',
      'reroll',
      'roll',
      'reroll',
      'roll',
      'reroll',
    ]);
    expect(r.total).toBe(11);
  });
  it('uo rerolls at most once', () => {
    expect(rollWith('3d6uo', [4, 4, 4, 4, 4]).total).toBe(12);
  });
  it('stops after 100 rerolls; the last throw stands', () => {
    const r = rollWith('2d1u', new Array(102).fill(1));
    expect(group(r).results).toHaveLength(102);
    expect(r.total).toBe(2);
  });
  it('uP considers only values meeting P', () => {
    expect(rollWith('4d6u<3', [5, 5, 1, 1, 2]).total).toBe(13);
    expect(rollWith('3d6uo>4', [5, 5, 5, 1]).total).toBe(11);
  });
  it('applies after reroll, and records throws even when nothing repeats', () => {
    const r = rollWith('2d6r1u', [1, 2, 2, 3]);
    expect(group(r).throws!.map((t) => t.kind)).toEqual(['roll', 'reroll', 'roll', 'reroll']);
    expect(r.total).toBe(5);
    expect(group(rollWith('2d6u', [1, 2])).throws).toHaveLength(2);
  });
  it('never with an explode; once per term', () => {
    for (const f of ['6d6u!', '6d6!pu', '6d6!!u', '6d6uo!!p'])
      expect(formulaError(f).message).toMatch(/unique/);
    expect(formulaError('6d6uuo').message).toMatch(/at most one unique/);
  });
});

describe('matching sets m / mN / mt / mtN', () => {
  const faces = [3, 1, 3, 5, 1, 1];
  it('m lists the values shown by at least N kept dice, the total unchanged', () => {
    const r = rollWith('6d6m', faces);
    expect(group(r).matches).toEqual([1, 3]);
    expect(r.total).toBe(14);
    expect(group(rollWith('6d6m3', faces)).matches).toEqual([1]);
    expect(group(rollWith('6d6kh3m', faces)).matches).toEqual([3]);
    expect(group(rollWith('2d6m', [1, 2])).matches).toEqual([]);
    expect(group(rollWith('3d6', [1, 1, 2])).matches).toBeUndefined();
  });
  it('mt makes the total the number of sets, times sign and multiplier', () => {
    expect(rollWith('6d6mt', faces).total).toBe(2);
    expect(rollWith('6d6mt3', faces).total).toBe(1);
    expect(rollWith('6d6mtx3', faces).total).toBe(6);
    expect(rollWith('1d4-6d6mt', [4, ...faces]).total).toBe(2);
  });
  it('N from 2; at most one; mt never with a success point', () => {
    expect(formulaError('6d6m1').message).toMatch(/2 to 1,000/);
    expect(formulaError('6d6mt1001').message).toMatch(/2 to 1,000/);
    expect(formulaError('6d6mmt').message).toMatch(/at most one matching set/);
    expect(formulaError('6d6mt>3').message).toMatch(/success point/);
    expect(rollWith('6d6m>3', faces).total).toBe(1);
  });
});
