// User request shapes: the list filter (preferences bodies live with their rules).
import { z } from 'zod';

export const userFilter = z
  .object({
    // true/false from a query string, a boolean from GraphQL.
    active: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
  })
  .strip();
