// Columns that hold a closed set are plain text in the database, checked against the set by the
// input rules before anything is stored: their answers are the set's GraphQL enum.
import type { OutputRef } from '@pothos/core';

/** The enum `ref`, taking the stored string a column of its values holds. */
export const storedEnum = <V extends string>(ref: OutputRef<V>) => ref as unknown as OutputRef<string>;
