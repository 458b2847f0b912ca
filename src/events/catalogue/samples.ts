// Sample records for test sends: stored rows as the database would answer them, with obviously
// fake values, fed to the same builders as real changes. Times are the moment of the send.
import {
  Prisma,
  type Activity,
  type Company,
  type Contact,
  type Import,
  type Note,
  type User,
} from '../../db/generated/client/client.ts';
import type { DealWithStage } from '../../records/deal.ts';
import type { TaskView } from '../../records/task.ts';
import type { Actor } from '../outbox.ts';

const WORKSPACE = 'ws_sample';

export const SAMPLE_ACTOR: Actor = { type: 'api_key', id: 'key_sample', name: 'Sample key' };

export function sampleContact(over: Partial<Contact> = {}): Contact {
  const now = new Date();
  return {
    id: 'con_sample',
    workspaceId: WORKSPACE,
    firstName: 'Sample',
    lastName: 'Contact',
    email: 'sample@example.com',
    phone: '+14155550100',
    company: 'Example Inc',
    jobTitle: 'Buyer',
    status: 'lead',
    source: 'api',
    tags: ['sample'],
    assignedToId: 'usr_sample',
    engagementScore: 0,
    customFields: { industry: 'Retail' },
    address: { street: '1 Example Street', city: 'Springfield', country: 'US' },
    companyId: 'com_sample',
    externalId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

export function sampleCompany(over: Partial<Company> = {}): Company {
  const now = new Date();
  return {
    id: 'com_sample',
    workspaceId: WORKSPACE,
    name: 'Example Inc',
    domain: 'example.com',
    industry: 'Retail',
    size: 50,
    phone: '+14155550101',
    address: { street: '1 Example Street', city: 'Springfield', country: 'US' },
    tags: ['sample'],
    ownerId: 'usr_sample',
    customFields: { tier: 'gold' },
    externalId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

export function sampleDeal(over: Partial<DealWithStage> = {}): DealWithStage {
  const now = new Date();
  return {
    id: 'deal_sample',
    workspaceId: WORKSPACE,
    title: 'Sample deal',
    pipelineId: 'pipe_sample',
    stageId: 'stg_sample',
    stage: { name: 'Qualified' },
    value: new Prisma.Decimal(1000),
    currency: 'USD',
    probability: 40,
    ownerId: 'usr_sample',
    contactId: 'con_sample',
    companyId: 'com_sample',
    externalId: null,
    version: 1,
    expectedCloseDate: new Date(Date.UTC(now.getUTCFullYear() + 1, 0, 31)),
    status: 'open',
    customFields: {},
    tags: ['sample'],
    wonReason: null,
    lostReason: null,
    competitor: null,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** Only what a task view reads of its assignee. */
const sampleAssignee = { id: 'usr_sample', name: 'Sample User' } as User;

export function sampleTask(over: Partial<TaskView> = {}): TaskView {
  const now = new Date();
  const due = new Date(now.getTime() + 86_400_000);
  return {
    id: 'task_sample',
    workspaceId: WORKSPACE,
    title: 'Sample task',
    description: 'Call back about the sample deal',
    status: 'pending',
    priority: 'medium',
    type: 'call',
    assigneeId: sampleAssignee.id,
    assignee: sampleAssignee,
    dueDate: due,
    relatedToType: 'contact',
    relatedToId: 'con_sample',
    relatedName: 'Sample Contact',
    reminderType: 'email',
    reminderBeforeMinutes: 30,
    reminderAt: new Date(due.getTime() - 30 * 60_000),
    reminderSentAt: null,
    overdueNotifiedAt: null,
    completionNote: null,
    completedAt: null,
    externalId: null,
    version: 1,
    createdBy: 'usr_sample',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

export function sampleActivity(): Activity {
  const now = new Date();
  return {
    id: 'act_sample',
    workspaceId: WORKSPACE,
    type: 'call',
    subject: 'Sample call',
    description: null,
    contactId: 'con_sample',
    dealId: 'deal_sample',
    companyId: null,
    userId: 'usr_sample',
    duration: 5,
    outcome: 'connected',
    occurredAt: now,
    attendees: [],
    externalId: null,
    version: 1,
    createdAt: now,
  };
}

export function sampleNote(): Note {
  const now = new Date();
  return {
    id: 'note_sample',
    workspaceId: WORKSPACE,
    contactId: 'con_sample',
    companyId: null,
    content: 'Sample **note**',
    createdBy: 'usr_sample',
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

export function sampleImport(): Import {
  const now = new Date();
  return {
    id: 'imp_sample',
    workspaceId: WORKSPACE,
    keyId: 'key_sample',
    userId: null,
    origin: { via: 'rest', requestId: 'req_sample', ip: '127.0.0.1' },
    resource: 'contacts',
    format: 'csv',
    mode: 'upsert',
    upsertBy: 'email',
    mapping: { 'E-mail': 'email', 'First name': 'first_name' },
    filename: 'contacts.csv',
    columns: ['E-mail', 'First name'],
    status: 'completed',
    error: null,
    bytesTotal: 2048n,
    bytesDone: 2048n,
    linesDone: 41,
    rowsRead: 40,
    rowsWritten: 39,
    rowsFailed: 1,
    rowsCreated: 30,
    runSeconds: 0.5,
    leaseToken: null,
    leaseUntil: null,
    createdAt: now,
    startedAt: now,
    finishedAt: now,
    updatedAt: now,
  };
}
