// The Pothos builder: plugins and scalars only. Types live in one module per domain.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { DateTimeResolver } from 'graphql-scalars';
import type PrismaTypes from '../db/generated/pothos-types.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';
import { OPEN_SHAPES } from './common/open-shapes.ts';
import type { Context } from './context.ts';

type OpenShape = { Input: Record<string, unknown>; Output: object };

export const builder = new SchemaBuilder<{
  Context: Context;
  // Fields answer a value unless marked `nullable: true`: null is the exception, and says so.
  DefaultFieldNullability: false;
  PrismaTypes: PrismaTypes;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    // Objects with free keys (src/schema/common/open-shapes.ts).
    CustomFieldValues: OpenShape;
    CustomFieldConditions: OpenShape;
    WebhookHeaders: OpenShape;
    WebhookFilters: OpenShape;
    EventData: OpenShape;
    AuditChanges: OpenShape;
    ErrorDetails: OpenShape;
    ImportMapping: OpenShape;
  };
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    // Relations are selected by the resolvers that load parents; warn in development if one is missed.
    onUnusedQuery: null,
  },
});

/** The schema's types as Pothos sees them (context, scalars, Prisma models), for helpers that take refs. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

builder.addScalarType('DateTime', DateTimeResolver);
for (const scalar of OPEN_SHAPES) builder.addScalarType(scalar.name as 'EventData', scalar);

builder.queryType({ description: 'Reads: records by id, pages of lists, searches and feeds.' });
builder.mutationType({ description: 'Writes: creating, changing and deleting records.' });
builder.subscriptionType({ description: 'Live events over graphql-ws or SSE, after commit, best effort.' });
