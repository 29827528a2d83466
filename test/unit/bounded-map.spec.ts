import { describe, expect, it } from '@jest/globals';
import { BoundedMap } from '../../lib/core/bounded-map.js';

describe('BoundedMap', () => {
  it('forgets the oldest key when a new one comes to a full map, and nothing when a key is set again', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.set('a', 10);
    expect([...map]).toEqual([
      ['a', 10],
      ['b', 2],
    ]);
    map.set('c', 3);
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('remembers what it computed, undefined included, and computes only for a key it does not hold', () => {
    const map = new BoundedMap<string, number | undefined>(2);
    const computed: string[] = [];
    const compute = (key: string) => {
      computed.push(key);
      return key === 'none' ? undefined : key.length;
    };
    expect(map.remember('abc', compute)).toBe(3);
    expect(map.remember('abc', compute)).toBe(3);
    expect(map.remember('none', compute)).toBeUndefined();
    expect(map.remember('none', compute)).toBeUndefined();
    expect(computed).toEqual(['abc', 'none']);
    map.remember('de', compute);
    expect([...map.keys()]).toEqual(['none', 'de']);
  });
});
