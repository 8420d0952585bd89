// Which heartbeats mark a host strained: a rise, between one connection's heartbeats, in slow reads,
// overdue reads or captures given up; not reads cut short, nor the first heartbeat of a connection.
import { describe, expect, it } from 'vitest';
import { risenSigns, type Strain } from '../../server/domain/strain.js';

const strain = (over: Partial<Strain> = {}): Strain => ({ slowReads: 0, readsCutShort: 0, readsOverdue: 0, capturesGivenUp: 0, ...over });

describe('signs of strain', () => {
  it('names the signs that rose, with by how much', () => {
    expect(risenSigns(strain({ slowReads: 3 }), strain({ slowReads: 5, capturesGivenUp: 1 }))).toEqual({ slowReads: 2, capturesGivenUp: 1 });
    expect(risenSigns(strain({ readsOverdue: 1 }), strain({ readsOverdue: 2 }))).toEqual({ readsOverdue: 1 });
  });

  it('takes no rise from counts that stayed, reads cut short, a first heartbeat or one without counts', () => {
    expect(risenSigns(strain({ slowReads: 7 }), strain({ slowReads: 7 }))).toEqual({});
    expect(risenSigns(strain(), strain({ readsCutShort: 40 }))).toEqual({});
    expect(risenSigns(undefined, strain({ slowReads: 900 }))).toEqual({});
    expect(risenSigns(strain(), undefined)).toEqual({});
  });
});
