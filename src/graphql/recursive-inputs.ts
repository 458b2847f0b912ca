// graphql-jit writes the coercion of each variable out as code, one level of its input type after
// another: for a type that holds itself (a filter's `and: [ContactWhere]`) that never ends, and the
// compile takes all memory. Both compilers (REST's routes, /graphql's documents) look here first.
import { getNamedType, isInputObjectType, type GraphQLInputType } from 'graphql';

/** An input type that holds itself, at any depth (a filter's `and: [ContactWhere]`). */
export function isRecursive(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return false;
  if (seen.has(named.name)) return true;
  seen.add(named.name);
  const found = Object.values(named.getFields()).some((f) => isRecursive(f.type, seen));
  seen.delete(named.name);
  return found;
}
