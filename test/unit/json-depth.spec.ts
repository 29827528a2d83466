import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  JsonDepthGauge,
  jsonTextTooDeep,
  MAX_JSON_DEPTH,
  valueTooDeep,
} from '../../lib/core/json-depth.js';

/**
 * The depth bound of JSON requests: the gauge reads text the way a parser would nest it (strings,
 * escapes and chunk boundaries included) without parsing it, and `valueTooDeep` measures parsed
 * values of any depth or shape without running out of stack.
 */
const SEED = process.env.FC_SEED === undefined ? 20260728 : Number(process.env.FC_SEED);
const RUNS = 400;

/** The nesting of a parsed JSON value: arrays and objects count, the value itself is level 1. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** Characters that matter to the gauge, often, and long runs of ordinary ones. */
const tricky = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'"\\[]{}ab'), maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...'ab"\\['), minLength: 30, maxLength: 90 }),
  fc.string({ maxLength: 20 }),
);

/** JSON values with strings full of brackets, quotes and backslashes. */
const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.integer(),
    fc.constantFrom(null, true, false),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
  ),
}));

/** The UTF-8 bytes of a text, cut at the given points. */
function chunks(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...at, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end));
}

describe('JsonDepthGauge', () => {
  it('says a text is too deep exactly when its parsed value nests deeper than the bound, whatever the chunks', () => {
    let tooDeep = 0;
    fc.assert(
      fc.property(
        jsonValue,
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (value, maxDepth, cuts) => {
          const text = JSON.stringify(value);
          const expected = depthOf(value) > maxDepth;
          if (expected) tooDeep++;
          const gauge = new JsonDepthGauge(maxDepth);
          const verdicts = chunks(text, cuts).map((chunk) => gauge.write(chunk));
          expect(!verdicts.every(Boolean)).toBe(expected);
          expect(jsonTextTooDeep(text, maxDepth)).toBe(expected);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // Both verdicts were given often.
    expect(tooDeep).toBeGreaterThan(RUNS / 10);
    expect(tooDeep).toBeLessThan(RUNS - RUNS / 10);
  });

  it('reads brackets in strings, escaped quotes and escaped backslashes as text', () => {
    expect(jsonTextTooDeep('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonTextTooDeep('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(jsonTextTooDeep('{"a":"\\\\","b":[]}', 1)).toBe(true);
    const long = `{"a":"${'x'.repeat(100)}\\"[[\\\\","b":"${'y'.repeat(100)}"}`;
    expect(jsonTextTooDeep(long, 1)).toBe(false);
    expect(jsonTextTooDeep(`${long.slice(0, -1)},"c":{}}`, 1)).toBe(true);
  });

  it(`defaults to MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) levels`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('stays refused once the bound is passed, and stops reading there', () => {
    const gauge = new JsonDepthGauge(2);
    expect(gauge.write(Buffer.from('[['))).toBe(true);
    expect(gauge.write(Buffer.from('['))).toBe(false);
    expect(gauge.write(Buffer.from(']]]'))).toBe(false);
  });
});

describe('valueTooDeep', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
    return value;
  };

  it('measures values nested far deeper than the stack allows', () => {
    expect(valueTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(valueTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(valueTooDeep(nested(1_000_000))).toBe(true);
    expect(valueTooDeep('text')).toBe(false);
  });

  it('agrees with the depth of generated values', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer({ min: 1, max: 5 }), (value, maxDepth) => {
        expect(valueTooDeep(value, maxDepth)).toBe(depthOf(value) > maxDepth);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('counts a cycle as too deep, and follows shared references once per level', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(valueTooDeep(cycle)).toBe(true);
    // 2^60 paths through 60 shared levels: each level is visited once.
    let shared: unknown = {};
    for (let i = 0; i < 60; i++) shared = { left: shared, right: shared };
    expect(valueTooDeep(shared, 64)).toBe(false);
    expect(valueTooDeep(shared, 60)).toBe(true);
  });

  it('counts objects other than arrays and plain objects as leaves', () => {
    class Node {
      next = nested(1000);
    }
    expect(
      valueTooDeep({ at: new Date(), node: new Node(), map: new Map([[1, nested(1000)]]) }),
    ).toBe(false);
  });
});
