// Creating a subscription (then its secret, shown once) and editing one.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { WebhookForm, type WebhookInput } from './webhook-form.tsx';
import { WEBHOOK_FIELDS, webhookLabel, type Webhook } from './webhook-model.ts';

export function WebhookNewPage() {
  useTitle('New webhook');
  const [created, setCreated] = useState<Webhook | null>(null);
  const create = async (input: WebhookInput) => {
    const { createWebhook } = await gql<{ createWebhook: Webhook }>(
      `mutation ($input: WebhookCreateInput!) { createWebhook(input: $input) { ${WEBHOOK_FIELDS} secret } }`,
      { input },
    );
    setCreated(createWebhook);
  };
  if (created) {
    return (
      <>
        <h1>Webhook created</h1>
        <SecretOnce label="Signing secret" value={created.secret ?? ''} id="webhook-secret" />
        <p>Receivers verify each delivery's signature with this secret (Standard Webhooks).</p>
        <p>
          <a class="button primary" href={`/dashboard/webhooks/${created.id}`}>
            Open {webhookLabel(created)}
          </a>
        </p>
      </>
    );
  }
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/webhooks">Webhooks</a> /
      </p>
      <h1>New webhook</h1>
      <WebhookForm submitLabel="Create webhook" onSubmit={create} />
    </>
  );
}

export function WebhookEditPage({ id }: { id: string }) {
  const { route } = useLocation();
  const webhook = useQuery(
    () =>
      gql<{ webhook: Webhook }>(`query ($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`, { id }).then(
        (d) => d.webhook,
      ),
    [id],
  );
  useTitle(webhook.data ? `Edit ${webhookLabel(webhook.data)}` : 'Edit webhook');
  const save = async (input: WebhookInput) => {
    await gql(`mutation ($id: ID!, $input: WebhookUpdateInput!) { updateWebhook(id: $id, input: $input) { id } }`, {
      id,
      input,
    });
    route(`/dashboard/webhooks/${id}`);
  };
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/webhooks">Webhooks</a> /{' '}
        {webhook.data && <a href={`/dashboard/webhooks/${id}`}>{webhookLabel(webhook.data)}</a>}
      </p>
      <h1>Edit webhook</h1>
      <ErrorMessage error={webhook.error} />
      {webhook.data && <WebhookForm initial={webhook.data} submitLabel="Save changes" onSubmit={save} />}
    </>
  );
}
