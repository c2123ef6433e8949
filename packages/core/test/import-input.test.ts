// Unit tests of the import line mapping: inputs pass through, exported
// memories become inputs without store-made fields, derived ones are skipped.
import { describe, expect, it } from 'vitest';
import type { Memory } from '@keepgraph/core';
import { memoryToInput, parseImportLine } from '../src/domain/import-input.ts';

const exported: Memory = {
  id: 'm1',
  ownerId: 'alice',
  kind: 'preference',
  text: 'The user dislikes middle seats',
  key: 'seat',
  origin: {
    sessionId: 's1',
    turn: '4',
    observedAt: '2026-01-01T00:00:00.000Z',
    writtenBy: 'agent-7',
  },
  sourceOrigins: [],
  authority: 'user',
  createdAt: '2026-01-01T00:00:00.000Z',
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: null,
  expiresAt: '2027-01-01T00:00:00.000Z',
  sensitivity: 'medium',
  tags: ['travel'],
  confidence: 0.8,
  contentHash: 'abc',
  derivedFrom: [],
  supersedes: null,
  supersededBy: null,
  conflict: false,
  about: [{ name: 'middle seat', type: 'thing' }],
  relations: [],
  embeddingModel: 'm',
  redactions: [],
};

describe('import lines', () => {
  it('maps an exported memory to an input, dropping writtenBy and store fields', () => {
    expect(memoryToInput(exported)).toEqual({
      kind: 'preference',
      text: 'The user dislikes middle seats',
      origin: { sessionId: 's1', turn: '4', observedAt: '2026-01-01T00:00:00.000Z' },
      authority: 'user',
      key: 'seat',
      tags: ['travel'],
      confidence: 0.8,
      sensitivity: 'medium',
      about: [{ name: 'middle seat', type: 'thing' }],
      relations: [],
    });
  });

  it('passes a memory input through unchanged', () => {
    const input = {
      kind: 'fact',
      text: 'The user lives in Lyon',
      origin: { tool: { name: 'crm' } },
    };
    expect(parseImportLine(JSON.stringify(input))).toEqual({ type: 'input', input });
  });

  it('skips exported derived memories, whose source ids do not survive', () => {
    expect(parseImportLine(JSON.stringify({ ...exported, derivedFrom: ['m0'] }))).toEqual({
      type: 'skipped_derived',
      id: 'm1',
    });
  });

  it('reports bad JSON and non-objects by code', () => {
    expect(parseImportLine('{nope')).toMatchObject({ type: 'invalid', code: 'invalid_json' });
    expect(parseImportLine('[1,2]')).toMatchObject({ type: 'invalid', code: 'invalid_input' });
  });
});
