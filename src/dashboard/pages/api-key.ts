// An API key as the user-only `apiKeys` field returns it; the key itself is never listed.
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scope: 'full' | 'read_only' | 'custom';
  permissions: string[];
  environment: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export const API_KEY_FIELDS =
  'id name prefix scope permissions environment created_at last_used_at expires_at revoked_at';
