import type { ApiKey } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';

export const ApiKeyType = builder.prismaObject('ApiKey', {
  name: 'ApiKey',
  description: 'An API key as it may be shown after creation: never the key itself.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, e.g. crm_live_AbCd' }),
    scope: t.exposeString('scope', { description: 'full, read_only or custom' }),
    permissions: t.exposeStringList('permissions', { description: 'For custom keys: resource:read or resource:write' }),
    environment: t.string({ description: 'production or sandbox', resolve: (k) => (k.sandbox ? 'sandbox' : 'production') }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    last_used_at: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    expires_at: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revoked_at: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const CreatedApiKey = builder.objectRef<{ api_key: ApiKey; key: string }>('CreatedApiKey').implement({
  fields: (t) => ({
    api_key: t.field({ type: ApiKeyType, resolve: (c) => c.api_key }),
    key: t.exposeString('key', { description: 'The key itself, shown only in this answer' }),
  }),
});
