// The binding rule of exposed use-cases (exposure.ts), which the server, the
// MCP server, the CLI and both SDKs follow: path parameters name arguments;
// of the rest, one object argument is the whole query or body, otherwise
// each is a field by name; arguments come back in the engine method's order.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentsFrom, exposed, httpBinding, requestOf } from '@keepgraph/core';
import { bindingProbes } from '@keepgraph/core/testing';

const { probeList, probeWrite } = bindingProbes();

describe('the binding of an exposed use-case', () => {
  it('carries a single object argument as the whole query of a GET', () => {
    const b = httpBinding(probeList);
    expect(b).toMatchObject({ method: 'GET', restIn: 'query', write: false, status: 200 });
    expect(b.args.map((a) => a.in)).toEqual(['path', 'whole']);
    expect(argumentsFrom(b, { ownerId: 'o' }, { limit: 3 })).toEqual(['o', { limit: 3 }]);
    // A left-out optional argument is not passed at all.
    expect(argumentsFrom(b, { ownerId: 'o' }, undefined)).toEqual(['o']);
  });

  it('carries other arguments as body fields of a write, in the engine order', () => {
    const b = httpBinding(probeWrite);
    expect(b).toMatchObject({ method: 'POST', restIn: 'body', write: true, status: 201 });
    expect(b.args.map((a) => `${a.name}:${a.in}`)).toEqual([
      'ownerId:path',
      'note:field',
      'id:path',
      'weight:field',
    ]);
    const args = ['o', 'remember the milk', 't9', 2];
    const { params, rest } = requestOf(b, args);
    expect(params).toEqual({ ownerId: 'o', id: 't9' });
    expect(rest).toEqual({ note: 'remember the milk', weight: 2 });
    expect(argumentsFrom(b, params, rest)).toEqual(args);
  });

  it('refuses, at definition, a path parameter that names no argument', () => {
    expect(() =>
      exposed(probeList, {
        summary: 's',
        result: z.object({}),
        http: 'GET /owners/:ownerId/things/:id',
      }),
    ).toThrow(/:id names no argument/);
  });
});
