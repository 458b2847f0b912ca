// Storing a custom field definition, for the createCustomField mutation and the admin CLI alike:
// the key, type and options are checked and the per-workspace cap holds under parallel creates.
import type { Db } from '../../db/client.ts';
import type { CustomFieldDefinition } from '../../db/generated/client/client.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import type { Actor } from '../../events/outbox.ts';
import { lockCap } from '../../db/locks.ts';
import { transaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { liveWorkspace } from '../common/live-workspace.ts';
import { CUSTOM_FIELD_TYPES } from './custom-field.rules.ts';

/** Every contact and deal write checks values against all definitions: keep the list short. */
export const MAX_CUSTOM_FIELDS = 100;

export interface CustomFieldInput {
  workspace: string;
  key: string;
  type: string;
  options?: string[];
  label?: string;
}

/** Checks and stores a custom field definition of a live workspace. */
/** What the audit log keeps of a definition. */
export const customFieldAuditFields = (d: CustomFieldDefinition) => ({
  key: d.key,
  type: d.type,
  options: d.options,
  label: d.label,
});

export async function insertCustomField(db: Db, input: CustomFieldInput, actor: Actor | null = null) {
  await liveWorkspace(db, input.workspace);
  if (!input.key || !/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(input.key)) {
    throw validationError({ key: ['must start with a letter and hold only letters, digits and _ (at most 64)'] });
  }
  if (!(CUSTOM_FIELD_TYPES as readonly string[]).includes(input.type)) {
    throw validationError({ type: [`must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`] });
  }
  const options = (input.options ?? []).map((o) => o.trim()).filter(Boolean);
  if (input.type === 'select' && options.length === 0) {
    throw validationError({ options: ['a select field needs options'] });
  }
  const taken = () => new AppError('conflict', `Custom field ${input.key} already exists`);
  // Counted and created under the workspace's lock, so parallel creates cannot pass the cap together.
  return transaction(
    db,
    async (tx) => {
      await lockCap(tx, 'custom_field_definitions', input.workspace);
      const count = await tx.customFieldDefinition.count({ where: { workspaceId: input.workspace } });
      if (count >= MAX_CUSTOM_FIELDS) {
        const message = `A workspace has at most ${MAX_CUSTOM_FIELDS} custom fields; remove one first`;
        throw new AppError('unprocessable_entity', message);
      }
      const created = await tx.customFieldDefinition.create({
        data: {
          id: newId('cf'),
          workspaceId: input.workspace,
          key: input.key,
          type: input.type,
          options,
          label: input.label ?? null,
        },
      });
      await recordAudit(tx, {
        workspaceId: input.workspace,
        actor,
        resource: 'custom_field',
        recordId: created.id,
        action: 'created',
        changes: diff(null, customFieldAuditFields(created)),
      });
      return created;
    },
    { uniqueViolation: taken },
  );
}
