// A front-end-style GraphQL client: urql, with the operations typed by graphql-codegen's client
// preset from the service's schema. Answers are read as the types say, without `!` or casts.
// Run: CRM_URL=http://127.0.0.1:3000 CRM_KEY=crm_live_... npx tsx examples/clients/graphql-client.ts
import { Client, fetchExchange, type AnyVariables, type OperationResult } from '@urql/core';
import { graphql } from './generated/graphql/index.ts';

export function crmClient(baseUrl: string, apiKey: string): Client {
  return new Client({
    url: `${baseUrl}/graphql`,
    exchanges: [fetchExchange],
    // A dashboard would send its session cookie and X-CSRF-Token instead.
    fetchOptions: { headers: { Authorization: `Bearer ${apiKey}` } },
    preferGetMethod: false,
  });
}

const CreateContact = graphql(`
  mutation CreateContact($input: ContactCreateInput!) {
    createContact(input: $input) {
      id
      first_name
      email
      status
      tags
      address { city country }
    }
  }
`);

const ContactsByStatus = graphql(`
  query ContactsByStatus($filter: ContactFilter, $limit: Int) {
    contacts(filter: $filter, limit: $limit) {
      nodes { id first_name status address { city } }
      total
      has_more
    }
  }
`);

const Pipelines = graphql(`
  query Pipelines {
    pipelines {
      nodes { id name is_default stages { id name position } }
    }
  }
`);

const CreateDeal = graphql(`
  mutation CreateDeal($input: DealCreateInput!) {
    createDeal(input: $input) { id title status stage_name }
  }
`);

const MoveDeal = graphql(`
  mutation MoveDeal($id: ID!, $input: DealStageMoveInput!) {
    moveDealStage(id: $id, input: $input) {
      id
      stage_id
      stage_name
      stage_history { from_stage_name to_stage_name note }
    }
  }
`);

/** The operation's data, or its errors as one exception. */
function dataOf<T, V extends AnyVariables>(what: string, result: OperationResult<T, V>): T {
  if (result.error) throw new Error(`${what}: ${result.error.message}`);
  if (!result.data) throw new Error(`${what}: no data`);
  return result.data;
}

async function main(): Promise<void> {
  const key = process.env.CRM_KEY;
  if (!key) throw new Error('Set CRM_KEY to an API key');
  const client = crmClient(process.env.CRM_URL ?? 'http://127.0.0.1:3000', key);

  const email = `grace.${Date.now()}@example.com`;
  const created = dataOf(
    'creating a contact',
    await client
      .mutation(CreateContact, {
        input: {
          first_name: 'Grace',
          email,
          status: 'lead',
          tags: ['navy'],
          address: { city: 'Arlington', country: 'US' },
        },
      })
      .toPromise(),
  );
  const contact = created.createContact;
  console.log(`contact ${contact.id} (${contact.status}) in ${contact.address?.city ?? 'no city'}`);

  const leads = dataOf(
    'listing leads',
    await client.query(ContactsByStatus, { filter: { status: 'lead' }, limit: 100 }).toPromise(),
  );
  if (!leads.contacts.nodes.some((c) => c.id === contact.id)) throw new Error('the new lead is not listed');
  console.log(
    `${leads.contacts.total} lead(s); first cities: ${leads.contacts.nodes
      .slice(0, 5)
      .map((c) => c.address?.city ?? '-')
      .join(', ')}`,
  );

  const { pipelines } = dataOf('listing pipelines', await client.query(Pipelines, {}).toPromise());
  const pipeline = pipelines.nodes.find((p) => p.is_default);
  if (!pipeline) throw new Error('the workspace has no default pipeline');
  const [, second] = pipeline.stages;

  const deal = dataOf(
    'creating a deal',
    await client
      .mutation(CreateDeal, {
        input: { title: 'Navy contract', pipeline_id: pipeline.id, value: 50_000, contact_id: contact.id },
      })
      .toPromise(),
  ).createDeal;
  const moved = dataOf(
    'moving the deal',
    await client
      .mutation(MoveDeal, { id: deal.id, input: { stage_id: second.id, note: 'qualified on a call' } })
      .toPromise(),
  ).moveDealStage;
  if (moved.stage_id !== second.id) throw new Error(`the deal is in ${moved.stage_name}, not ${second.name}`);
  const moves = moved.stage_history.map((h) => `${h.from_stage_name ?? 'start'} → ${h.to_stage_name}`);
  console.log(`deal ${deal.title}: ${moves.join(', ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
