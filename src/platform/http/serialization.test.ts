import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { buildSerializerCompiler } from './serialization.js';

describe('compiled serializers', () => {
  const shared = { Thing: { $id: 'Thing', type: 'object', properties: { id: { type: 'string' } } } };
  const schema = () => Type.Object({ amount: Type.String(), thing: Type.Ref('Thing') });
  const route = { method: 'GET', url: '/things', httpStatus: '200', schema: schema() };
  const value = { amount: '1.50', thing: { id: 'a', secret: 'x' }, extra: true };

  it('are compiled once a process for the same schema and shared schemas, and apart when either differs', () => {
    // Fastify asks once per plugin context, for every app built: each a compiler of its own.
    const [one, two, other] = [
      buildSerializerCompiler(shared),
      buildSerializerCompiler(shared),
      buildSerializerCompiler({ ...shared, More: {} }),
    ];
    const serialize = one(route);
    expect(two({ ...route, schema: schema() })).toBe(serialize);
    expect(two({ ...route, schema: Type.Object({ amount: Type.String() }) })).not.toBe(serialize);
    expect(other({ ...route, schema: schema() })).not.toBe(serialize);
  });

  it("write what Fastify's own serializers write: the schema's fields only, shared schemas resolved", () => {
    const own = SerializerSelector()(shared)(route);
    expect(buildSerializerCompiler(shared)(route)(value)).toBe(own(value));
    expect(JSON.parse(own(value))).toEqual({ amount: '1.50', thing: { id: 'a' } });
  });
});
