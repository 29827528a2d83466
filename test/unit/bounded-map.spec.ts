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
});
