// A user's notification preferences: one switch per channel. Task reminders fire on a channel
// only while the assignee has it switched on.
import { z } from 'zod';

export const NOTIFICATION_CHANNELS = ['email', 'push'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
export type NotificationPreferences = Record<NotificationChannel, boolean>;

/** The stored JSON read leniently: a channel not stored as a boolean is on, like the column default. */
export function notificationPreferences(stored: unknown): NotificationPreferences {
  const raw = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  return Object.fromEntries(
    NOTIFICATION_CHANNELS.map((c) => [c, typeof raw[c] === 'boolean' ? raw[c] : true]),
  ) as NotificationPreferences;
}

/** Only the channels given change; unknown keys are ignored. */
export const preferencesInput = z.object({ email: z.boolean().optional(), push: z.boolean().optional() }).strip();
