// Activity events: an activity records something that already happened, so it is only logged.
import { z } from 'zod';
import type { Activity } from '../../db/generated/client/client.ts';
import { activityRecord } from '../../records/activity.ts';
import { defineEvent } from './define.ts';
import { ActivityRecordSchema } from './records.ts';
import { sampleActivity } from './samples.ts';

export const activityLogged = defineEvent({
  name: 'activity.logged',
  entityType: 'activity',
  description: 'An activity (call, email, meeting, note or SMS) was logged.',
  data: z.object({ activity: ActivityRecordSchema }),
  build: (activity: Activity) => ({ activity: activityRecord(activity) }),
  sampleInput: () => sampleActivity(),
});
