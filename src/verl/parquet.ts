/**
 * verl RL rows (rows.ts) as a parquet file, through hyparquet-writer with an explicit nested
 * schema: the layout pyarrow gives the same Python dicts (what verl's data_preprocess scripts
 * write with `datasets.Dataset.to_parquet`), so verl's RLHFDataset reads `prompt` as a list of
 * {content, role} and `reward_model` / `extra_info` as dicts. Integers are INT64 (Python int).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import type { VerlRow } from './rows';

const text = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
const struct = (name: string, children: SchemaElement[]): SchemaElement[] => [{ name, repetition_type: 'OPTIONAL', num_children: children.length }, ...children];

const EXTRA_INFO: SchemaElement[] = [text('answer'), int64('difficulty'), text('family'), text('id'), int64('index'), text('prompt'), text('split')];

/** Depth-first schema (parquet's flattened tree), columns in the order verl's examples write them. */
export const VERL_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'schema', num_children: 5 },
  text('data_source'),
  // A 3-level LIST of structs, as pyarrow writes list<struct<content, role>>.
  { name: 'prompt', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  ...struct('element', [text('content'), text('role')]),
  text('ability'),
  ...struct('reward_model', [text('ground_truth'), text('style')]),
  ...struct('extra_info', EXTRA_INFO),
];

export function verlParquet(rows: readonly VerlRow[]): Uint8Array {
  if (rows.length === 0) throw new RangeError('a verl parquet file needs at least one row');
  const buffer = parquetWriteBuffer({
    schema: VERL_PARQUET_SCHEMA,
    columnData: [
      { name: 'data_source', data: rows.map((r) => r.data_source) },
      { name: 'prompt', data: rows.map((r) => r.prompt) },
      { name: 'ability', data: rows.map((r) => r.ability) },
      { name: 'reward_model', data: rows.map((r) => r.reward_model) },
      {
        name: 'extra_info',
        data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index), difficulty: BigInt(r.extra_info.difficulty) })),
      },
    ],
    kvMetadata: [{ key: 'magic-lab', value: 'verl RL dataset written by magic-lab export-verl' }],
  });
  return new Uint8Array(buffer);
}
