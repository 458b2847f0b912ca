// external_id: the caller's own id for a record (another system's key), on contacts, companies,
// deals, tasks and activities. Settable on create and update, unique in the workspace (a unique
// key on (workspace_id, external_id)), filterable. A second record with the same one is a 409
// whose details name the record that holds it (`existing_id`).
import { z } from 'zod';
import { AppError } from '../../errors.ts';

export const EXTERNAL_ID_HELP =
  "The caller's own id for the record, such as another system's key: 1 to 255 characters, " +
  'unique in the workspace; null clears it.';

/** The field's description on answers. */
export const EXTERNAL_ID_ANSWER = "The caller's own id for the record, unique in the workspace; null when none was set";

/** 1..255 characters after trimming; `.nullable().optional()` where it is a field of a body. */
export const externalId = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .meta({ description: EXTERNAL_ID_HELP });

/** The query-string filter: exact match. */
export const externalIdFilter = z.string().max(255).meta({ description: 'Only the record with this external_id' });

/**
 * Whether a unique violation is about external_id: the key's columns withRefusals hands over, or
 * the name of its index (`<table>_workspace_id_external_id_key`) when that is all the driver gives.
 */
export const onExternalId = (key: string[]) => key.some((k) => k === 'external_id' || k.endsWith('_external_id_key'));

/**
 * The 409 of an external_id another record of the workspace holds, naming that record. `holder`
 * looks it up after the refused write's transaction is over; it may have gone meanwhile.
 */
export async function externalIdTaken(what: string, holder: () => Promise<{ id: string } | null>): Promise<AppError> {
  const existing = await holder();
  return new AppError('conflict', `A ${what} with this external_id already exists in the workspace`, {
    external_id: ['is already taken'],
    ...(existing ? { existing_id: existing.id } : {}),
  });
}
