// jsonSchema keeps each schema's JSON Schema for the process and answers a copy: a caller that changes what it was
// given (the MCP tools drop an empty `required`) changes nothing for the next.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchema } from './openapi.ts';

describe('jsonSchema', () => {
  const schema = z.object({ market: z.string().describe('the market'), limit: z.number().int().default(20) });

  it('answers the same JSON Schema each time, as a copy of its own', () => {
    const first = jsonSchema(schema, 'input') as { properties: Record<string, unknown>; required?: string[] };
    expect(first).not.toHaveProperty('$schema');
    delete first.properties.market;
    first.required = [];
    const second = jsonSchema(schema, 'input');
    const { $schema: _drop, ...made } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
    expect(second).toEqual(made);
    expect(second).toMatchObject({ properties: { market: { type: 'string', description: 'the market' } }, required: ['market'] });
    expect(second).not.toBe(first);
  });

  it('keeps input and output apart (a default makes a field optional only on input)', () => {
    expect(jsonSchema(schema, 'input')).toMatchObject({ required: ['market'] });
    expect(jsonSchema(schema, 'output')).toMatchObject({ required: ['market', 'limit'] });
  });
});
