// Scopes: full, read_only, or custom with `<resource>:read|write` permissions.
import { AppError } from '../errors.ts';
import { RESOURCES, type Resource } from './resources.ts';

export { RESOURCES, type Resource };
export type Access = 'read' | 'write';
export const SCOPES = ['full', 'read_only', 'custom'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Grant {
  scope: Scope;
  permissions: readonly string[];
}

/** Parses `contacts:read,deals:write`; returns the invalid entries separately. */
export function parsePermissions(list: string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of list.map((p) => p.trim()).filter(Boolean)) {
    const [resource, access] = raw.split(':');
    if ((RESOURCES as readonly string[]).includes(resource) && (access === 'read' || access === 'write')) valid.push(raw);
    else invalid.push(raw);
  }
  return { valid, invalid };
}

export function allows(grant: Grant, resource: Resource, access: Access): boolean {
  if (grant.scope === 'full') return true;
  if (grant.scope === 'read_only') return access === 'read';
  // A write permission implies read of the same resource.
  return grant.permissions.includes(`${resource}:${access}`) || (access === 'read' && grant.permissions.includes(`${resource}:write`));
}

export function assertAllowed(grant: Grant, resource: Resource, access: Access): void {
  if (!allows(grant, resource, access)) {
    throw new AppError('forbidden', `This API key may not ${access} ${resource}`);
  }
}
