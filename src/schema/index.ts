// Imports every domain module (each registers its types on the builder) and builds the schema.
import { builder } from './builder.ts';
import { enforceReadAccess } from './read-access.ts';
import './common/enums.ts';
import './user/user.type.ts';
import './contact/contact.queries.ts';
import './contact/contact.mutations.ts';
import './note/note.ts';
import './contact/timeline.ts';
import './contact/contact.batch.ts';
// Companies
import './company/company.queries.ts';
import './company/company.mutations.ts';
import './company/company.timeline.ts';
import './company/company.batch.ts';
// Deals and pipelines
import './pipeline/pipeline.queries.ts';
import './pipeline/pipeline.mutations.ts';
import './pipeline/stage.mutations.ts';
import './deal/deal.queries.ts';
import './deal/deal.mutations.ts';
import './deal/deal-contacts.ts';
import './deal/deal.batch.ts';
// Tasks
import './task/task.queries.ts';
import './task/task.mutations.ts';
import './task/task.batch.ts';
// Activities and users
import './activity/activity.queries.ts';
import './activity/activity.mutations.ts';
import './user/user.queries.ts';
import './user/user.mutations.ts';
// The Team page: invitations, password links, deactivation (signed-in users only)
import './user/team.mutations.ts';
// Webhooks
import './webhook/webhook.queries.ts';
import './webhook/webhook.mutations.ts';
import './webhook/delivery-attempts.ts';
import './webhook/webhook.recover.ts';
// Aggregates for the dashboard's Insight page
import './insight/insight.queries.ts';
// The workspace's settings
import './workspace/settings.ts';
// Dashboard users only: API keys and custom field definitions
import './api-key/api-key.queries.ts';
import './api-key/api-key.mutations.ts';
import './custom-field/custom-field.queries.ts';
import './custom-field/custom-field.mutations.ts';
// The event log
import './event/event-log.queries.ts';
import './audit/audit-log.queries.ts';
// Imports
import './import/import.queries.ts';
import './import/import.mutations.ts';
import './import/import.subscription.ts';
import './import/import.fields.ts';
// Live events over graphql-ws
import './subscription/events.subscription.ts';
import './subscription/changes.subscription.ts';
import './subscription/company-changes.subscription.ts';

export const schema = enforceReadAccess(builder.toSchema());
