import type { ApiKey } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { ApiKeyEnvironment, ApiKeyScope } from '../common/enums.ts';
import { storedEnum } from '../common/stored-enum.ts';

export const ApiKeyType = builder.prismaObject('ApiKey', {
  name: 'ApiKey',
  description: 'An API key as it may be shown after creation: never the key itself.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, e.g. crm_live_AbCd' }),
    scope: t.expose('scope', { type: storedEnum(ApiKeyScope) }),
    permissions: t.exposeStringList('permissions', {
      description: 'What a custom key may do: resource:read or resource:write, e.g. contacts:read',
    }),
    environment: t.field({ type: ApiKeyEnvironment, resolve: (k) => (k.sandbox ? 'sandbox' : 'production') }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    last_used_at: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'Null until first used' }),
    expires_at: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Null when it does not expire',
    }),
    revoked_at: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'Null unless revoked' }),
  }),
});

export const CreatedApiKey = builder.objectRef<{ api_key: ApiKey; key: string }>('CreatedApiKey').implement({
  description: 'A key just created: the only answer that holds the key itself.',
  fields: (t) => ({
    api_key: t.field({ type: ApiKeyType, resolve: (c) => c.api_key }),
    key: t.exposeString('key', { description: 'The key itself, shown only in this answer' }),
  }),
});
