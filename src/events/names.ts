// Event names on their own, free of server imports, so the dashboard bundle can list them too.

/** Events the service emits. */
export const EMITTED_EVENTS = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.merged',
  'contact.tag_added',
  'contact.tag_removed',
  'contact.status_changed',
  'company.created',
  'company.updated',
  'company.deleted',
  'company.merged',
  'deal.created',
  'deal.updated',
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'deal.deleted',
  'task.created',
  'task.updated',
  'task.completed',
  'task.assigned',
  'task.overdue',
  'task.deleted',
  'activity.logged',
  'import.completed',
] as const;

/** Names from the specification that subscriptions may list although nothing emits them yet. */
export const ACCEPTED_EVENTS = [
  ...EMITTED_EVENTS,
  'invoice.created',
  'invoice.paid',
  'invoice.overdue',
  'form.submitted',
  'payment.received',
  'payment.failed',
  'payment.refunded',
  'subscription.created',
  'subscription.canceled',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.canceled',
  'email.sent',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'sms.sent',
  'sms.received',
  'call.completed',
] as const;

/** Written to the log for contact timelines only; never offered to subscribers. */
export const TIMELINE_ONLY_EVENTS = ['note.created', 'deal.contact_added', 'deal.contact_removed'] as const;

/** Every event the log holds: the emitted ones and the timeline-only ones. */
export type EventName = (typeof EMITTED_EVENTS)[number] | (typeof TIMELINE_ONLY_EVENTS)[number];
