// The Pothos builder: plugins and scalars only. Types live in one module per domain.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../db/generated/pothos-types.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';
import type { Context } from './context.ts';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: object };
  };
}>({
  plugins: [PrismaPlugin],
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    // Relations are selected by the resolvers that load parents; warn in development if one is missed.
    onUnusedQuery: null,
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('JSONObject', JSONObjectResolver);

builder.queryType({ description: 'Reads: records by id, pages of lists, searches and feeds.' });
builder.mutationType({ description: 'Writes: creating, changing and deleting records.' });
builder.subscriptionType({ description: 'Live events over graphql-ws or SSE, after commit, best effort.' });
