import { ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { parseSweepCsv, splitCsvLine } from './read-sweep-csv.js';
import { groupSweepRows } from './sweep-dataset.js';

const header =
  'workload,instance_type,nodes,vcpus_per_node,memory_gib_per_node,price_usd_per_node_hour,runtime_s,completed';

describe('parseSweepCsv', () => {
  it('reads typed rows and accepts columns in any order with extra columns', () => {
    const text = `runtime_s,extra,${header.replace(',runtime_s', '')}\n120.5,x,join,m4.large,4,2,8,0.1,TRUE\n`;
    const [row] = parseSweepCsv(text, 'sweep.csv');
    expect(row).toEqual({
      workload: 'join',
      instance_type: 'm4.large',
      nodes: 4,
      vcpus_per_node: 2,
      memory_gib_per_node: 8,
      price_usd_per_node_hour: 0.1,
      runtime_s: 120.5,
      completed: true,
    });
  });

  it('names the line and the column of a bad value', () => {
    const text = `${header}\njoin,m4.large,4,2,8,0.1,100,true\njoin,m4.large,six,2,8,0.1,100,true\n`;
    expect(() => parseSweepCsv(text, 'sweep.csv')).toThrow(
      /sweep\.csv:3: column nodes must be a number \(got "six"\)/,
    );
  });

  it('rejects a completed flag that is not true or false', () => {
    const text = `${header}\njoin,m4.large,4,2,8,0.1,100,yes\n`;
    expect(() => parseSweepCsv(text, 'sweep.csv')).toThrow(
      /sweep\.csv:2: column completed must be true or false/,
    );
  });

  it('lists the missing header columns', () => {
    const error = (() => {
      try {
        parseSweepCsv('workload,instance_type,nodes\n', 'sweep.csv');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('missing column(s) vcpus_per_node, memory_gib_per_node');
  });

  it('reports rows with the wrong number of fields', () => {
    expect(() => parseSweepCsv(`${header}\njoin,m4.large,4\n`, 'sweep.csv')).toThrow(
      /sweep\.csv:2: expected 8 fields, found 3/,
    );
  });

  it('splits quoted fields', () => {
    expect(splitCsvLine('"a,b",c,"say ""hi"""')).toEqual(['a,b', 'c', 'say "hi"']);
  });
});

describe('groupSweepRows', () => {
  it('groups repeats per configuration and averages only completed runs', () => {
    const text = `${header}\nw,m4.large,4,2,8,0.1,100,true\nw,m4.large,4,2,8,0.1,200,true\nw,m4.large,4,2,8,0.1,50,false\nw,c4.large,4,2,3.75,0.1,70,false\n`;
    const [workload] = groupSweepRows(parseSweepCsv(text, 'sweep.csv'));
    expect(workload?.configs).toHaveLength(2);
    const [m4, c4] = workload!.configs;
    expect(m4?.runs).toHaveLength(3);
    expect(m4?.meanRuntimeS).toBe(150);
    expect(m4?.meanCostUsd).toBeCloseTo((4 * 0.1 * 150) / 3600, 12);
    expect(c4?.meanRuntimeS).toBeUndefined();
  });
});
