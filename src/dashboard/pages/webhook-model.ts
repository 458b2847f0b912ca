// A webhook subscription as GraphQL returns it.
export interface Webhook {
  id: string;
  name: string | null;
  url: string;
  description: string | null;
  events: string[];
  active: boolean;
  http_method: string;
  content_type: string;
  headers: Record<string, string>;
  timeout_seconds: number;
  retry_policy: { max_retries: number; intervals_seconds: number[] };
  auto_disable_after: number;
  payload_format: string;
  filters: Record<string, unknown> | null;
  consecutive_failures: number;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
  secret?: string | null;
}

export const WEBHOOK_FIELDS = `id name url description events active http_method content_type headers timeout_seconds
  retry_policy { max_retries intervals_seconds } auto_disable_after payload_format filters consecutive_failures
  disabled_at created_at updated_at`;

export const webhookLabel = (w: Pick<Webhook, 'name' | 'url'>) => w.name || w.url;

export const hasFilters = (w: Pick<Webhook, 'filters'>) => Boolean(w.filters && Object.keys(w.filters).length);
