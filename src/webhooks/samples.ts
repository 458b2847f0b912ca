// Sample event data for POST /v1/webhooks/:id/test: realistic shapes, obviously fake values.
const now = () => new Date().toISOString();

const contact = () => ({
  id: 'con_sample', first_name: 'Sample', last_name: 'Contact', email: 'sample@example.com', phone: '+14155550100',
  company: 'Example Inc', job_title: 'Buyer', status: 'lead', source: 'api', tags: ['sample'], assigned_to: null,
  engagement_score: 0, custom_fields: {}, address: null, created_at: now(), updated_at: now(),
});
const deal = () => ({
  id: 'deal_sample', title: 'Sample deal', value: 1000, currency: 'USD', pipeline_id: 'pipe_sample', stage_id: 'stg_sample',
  stage_name: 'Qualified', previous_stage_id: 'stg_previous', previous_stage_name: 'Lead', owner_id: null, contact_id: 'con_sample',
  status: 'open', created_at: now(), updated_at: now(),
});
const task = () => ({
  id: 'task_sample', title: 'Sample task', status: 'pending', priority: 'medium', type: 'todo', assignee_id: null,
  due_date: now(), completed_at: null, created_at: now(),
});
const activity = () => ({
  id: 'act_sample', type: 'call', subject: 'Sample call', contact_id: 'con_sample', deal_id: null, duration: 5,
  outcome: 'connected', occurred_at: now(), created_at: now(),
});

export function sampleData(event: string): Record<string, unknown> {
  const group = event.split('.')[0];
  if (group === 'contact') return { contact: contact() };
  if (group === 'deal') return { deal: deal(), ...(event === 'deal.stage_changed' ? { changed_by: { id: 'key_sample', name: 'Sample key' } } : {}) };
  if (group === 'task') return { task: task() };
  if (group === 'activity') return { activity: activity() };
  return { sample: true, event };
}
