// Creating a deal: title, value, stage and, optionally, a contact picked from a search. From the board
// the pipeline is the board's; from a contact's page the pipeline is chosen and the contact prefilled.
import { useState } from 'preact/hooks';
import { ContactCombobox, type ContactOption } from '../components/contact-combobox.tsx';
import { FormDialog } from '../components/form-dialog.tsx';
import { createDeal, type Stage } from './pipeline-model.ts';

export interface PipelineChoice {
  id: string;
  name: string;
  stages: Stage[];
}

export function NewDealDialog({
  pipelines,
  contact,
  onCreated,
  onClose,
}: {
  /** The pipelines to choose from, the first chosen; the select shows only when there are several. */
  pipelines: PipelineChoice[];
  /** The contact to prefill. */
  contact?: ContactOption;
  onCreated(id: string): void;
  onClose(): void;
}) {
  const [title, setTitle] = useState('');
  const [value, setValue] = useState('');
  const [pipelineId, setPipelineId] = useState(pipelines[0]?.id ?? '');
  const stages = pipelines.find((p) => p.id === pipelineId)?.stages ?? [];
  const [stageId, setStageId] = useState(stages[0]?.id ?? '');
  const [picked, setPicked] = useState<ContactOption | null>(contact ?? null);

  const submit = async () => {
    const created = await createDeal(pipelineId, {
      title: title.trim(),
      value: value.trim() === '' ? null : Number(value),
      stage_id: stageId,
      contact_id: picked?.id ?? null,
    });
    onCreated(created.id);
  };

  return (
    <FormDialog title="New deal" submitLabel="Create deal" onSubmit={submit} onClose={onClose}>
      <label>
        Title
        <input value={title} maxLength={255} autoFocus onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        <span>
          Value <span class="hint">(optional)</span>
        </span>
        <input type="number" step="any" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      </label>
      {pipelines.length > 1 && (
        <label>
          Pipeline
          <select
            value={pipelineId}
            onChange={(e) => {
              const next = e.currentTarget.value;
              setPipelineId(next);
              setStageId(pipelines.find((p) => p.id === next)?.stages[0]?.id ?? '');
            }}
          >
            {pipelines.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Stage
        <select value={stageId} onChange={(e) => setStageId(e.currentTarget.value)}>
          {stages.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <ContactCombobox id="new-deal-contact" label="Contact (optional)" picked={picked} onPick={setPicked} />
    </FormDialog>
  );
}
