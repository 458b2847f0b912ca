// Pipelines and their stages: create a pipeline, rename it or make it the default; add, rename and
// delete stages, set their win probability, and reorder them by drag and drop or with the Move up /
// Move down buttons. The chosen pipeline is kept in the URL (?id=).
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ErrorMessage } from '../components/error-message.tsx';
import { InlineEdit } from '../components/inline-edit.tsx';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import {
  createPipeline,
  createStage,
  deleteRefusal,
  deleteStage,
  dropPosition,
  type EditableStage,
  loadPipelines,
  loadStages,
  MAX_STAGES,
  type PipelineSummary,
  reordered,
  stageNames,
  stepPosition,
  updatePipeline,
  updateStage,
} from './pipelines-model.ts';
import { InlineSelect } from '../components/inline-select.tsx';

const DRAG_TYPE = 'application/x-crm-stage';

/** A number field's value as sent: null when empty, so that the API explains what it needs. */
const numberOrNull = (v: string): number | null => (v === '' ? null : Number(v));

function NewPipelineForm({ onCreated }: { onCreated: (p: PipelineSummary) => void }) {
  const [name, setName] = useState('');
  const [stages, setStages] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const created = await createPipeline(name.trim(), stageNames(stages));
      setName('');
      setStages('');
      onCreated(created);
    });
  };
  return (
    <form onSubmit={submit} class="stack" aria-labelledby="new-pipeline">
      <h2 id="new-pipeline">New pipeline</h2>
      <div class="field-grid">
        <label>
          Pipeline name
          <input name="pipeline-name" value={name} maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          <span>
            Stages <span class="hint">(one per line; empty for the default stages)</span>
          </span>
          <textarea name="stage-names" rows={3} value={stages} onInput={(e) => setStages(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create pipeline'}
        </button>
      </div>
    </form>
  );
}

function AddStageForm({ pipelineId, full, onAdded }: { pipelineId: string; full: boolean; onAdded: () => void }) {
  const [name, setName] = useState('');
  const [probability, setProbability] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const p = numberOrNull(probability.trim());
      await createStage(pipelineId, { name: name.trim(), ...(p === null ? {} : { probability: p }) });
      setName('');
      setProbability('');
      onAdded();
    });
  };
  return (
    <form onSubmit={submit} class="stack" aria-labelledby="add-stage">
      <h3 id="add-stage">Add a stage</h3>
      <p class="hint">It goes last; move it from the list. A pipeline has at most {MAX_STAGES} stages.</p>
      <div class="field-grid">
        <label>
          Stage name
          <input name="stage-name" value={name} maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          <span>
            Win probability (%) <span class="hint">(0 when empty)</span>
          </span>
          <input
            name="stage-probability"
            type="number"
            step="1"
            value={probability}
            onInput={(e) => setProbability(e.currentTarget.value)}
          />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || full}>
          {busy ? 'Adding…' : 'Add stage'}
        </button>
      </div>
    </form>
  );
}

function StageRow({
  stage,
  index,
  count,
  pipelineId,
  dragging,
  onMove,
  onDragStart,
  onDrop,
  onChanged,
}: {
  stage: EditableStage;
  index: number;
  count: number;
  pipelineId: string;
  dragging: boolean;
  onMove: (stage: EditableStage, step: -1 | 1) => void;
  onDragStart: (id: string | null) => void;
  onDrop: (targetId: string) => void;
  onChanged: () => Promise<void>;
}) {
  const [over, setOver] = useState(false);
  const [asking, setAsking] = useState(false);
  const remove = useAction();
  const refusal = deleteRefusal(stage, count);
  const refusalId = `stage-refusal-${stage.id}`;
  const accept = (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes(DRAG_TYPE)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    setOver(true);
  };
  const classes = ['stage-row', over && 'drop-target', dragging && 'dragging'].filter(Boolean).join(' ');
  return (
    <li
      class={classes}
      data-stage-id={stage.id}
      draggable
      onDragStart={(e) => {
        // Only a drag that starts on the row itself (not in a field being edited) moves it.
        if ((e.target as HTMLElement).closest('input, select, textarea')) return;
        e.dataTransfer?.setData(DRAG_TYPE, stage.id);
        e.dataTransfer?.setData('text/plain', stage.name);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
        onDragStart(stage.id);
      }}
      onDragEnd={() => onDragStart(null)}
      onDragOver={accept}
      onDragEnter={accept}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        onDrop(stage.id);
      }}
    >
      <span class="stage-handle" aria-hidden="true" title="Drag to reorder">
        ⠿
      </span>
      <span class="stage-position" title="Position">
        {index + 1}
      </span>
      <div class="stage-main">
        <InlineEdit
          label={`name of ${stage.name}`}
          value={stage.name}
          onSave={async (name) => {
            await updateStage(pipelineId, stage, { name });
            await onChanged();
          }}
        >
          <strong class="stage-name">{stage.name}</strong>
        </InlineEdit>
        <InlineEdit
          label={`win probability of ${stage.name}`}
          type="number"
          value={String(stage.probability)}
          onSave={async (v) => {
            await updateStage(pipelineId, stage, { probability: numberOrNull(v) as number });
            await onChanged();
          }}
        >
          <span data-testid="stage-probability">{stage.probability}%</span> <span class="hint">win probability</span>
        </InlineEdit>
        <span class="hint" data-testid="stage-deals">
          {stage.deal_count === null ? '' : stage.deal_count === 1 ? '1 deal' : `${stage.deal_count} deals`}
        </span>
      </div>
      <div class="stage-buttons">
        <button
          type="button"
          class="small"
          aria-label={`Move ${stage.name} up`}
          disabled={index === 0}
          onClick={() => onMove(stage, -1)}
        >
          ↑ Up
        </button>
        <button
          type="button"
          class="small"
          aria-label={`Move ${stage.name} down`}
          disabled={index === count - 1}
          onClick={() => onMove(stage, 1)}
        >
          ↓ Down
        </button>
        {asking ? (
          <span class="confirm">
            <button
              type="button"
              class="small danger"
              autoFocus
              disabled={remove.busy}
              onClick={() =>
                remove.run(async () => {
                  await deleteStage(pipelineId, stage);
                  setAsking(false);
                  await onChanged();
                })
              }
            >
              Delete {stage.name}
            </button>
            <button type="button" class="small" onClick={() => setAsking(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button
            type="button"
            class="small danger-outline"
            aria-label={`Delete ${stage.name}`}
            aria-describedby={refusal ? refusalId : undefined}
            disabled={Boolean(refusal)}
            onClick={() => setAsking(true)}
          >
            Delete
          </button>
        )}
      </div>
      {refusal && (
        <p class="hint stage-refusal" id={refusalId}>
          {refusal}
        </p>
      )}
      <ErrorMessage error={remove.error} />
    </li>
  );
}

function StageList({ pipelineId }: { pipelineId: string }) {
  const stages = useQuery(() => loadStages(pipelineId), [pipelineId]);
  const [order, setOrder] = useState<EditableStage[] | null>(null);
  const [dragged, setDragged] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const focusAfter = useRef<{ id: string; step: -1 | 1 } | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const move = useAction();
  const shown = order ?? stages.data ?? [];

  // Focus stays on the button that moved the stage (or its other one at either end), as the row moves.
  useLayoutEffect(() => {
    const after = focusAfter.current;
    if (!after) return;
    const row = list.current?.querySelector(`[data-stage-id="${after.id}"]`);
    const [up, down] = row?.querySelectorAll<HTMLButtonElement>('.stage-buttons button') ?? [];
    const wanted = after.step === -1 ? up : down;
    (wanted && !wanted.disabled ? wanted : after.step === -1 ? down : up)?.focus();
    // Once the stages are read again, later changes leave focus where the person puts it.
    if (order === null) focusAfter.current = null;
  }, [shown]);

  const reload = async () => {
    await stages.reload();
    setOrder(null);
  };

  const moveTo = (stage: EditableStage, position: number) =>
    move.run(async () => {
      setOrder(reordered(shown, stage.id, position));
      try {
        await updateStage(pipelineId, stage, { position });
        setSaid(`Moved ${stage.name} to position ${position} of ${shown.length}.`);
      } finally {
        await reload();
      }
    });

  const onMove = (stage: EditableStage, step: -1 | 1) => {
    const position = stepPosition(shown, stage.id, step);
    if (position === null) return;
    focusAfter.current = { id: stage.id, step };
    void moveTo(stage, position);
  };

  const onDrop = (targetId: string) => {
    const stage = shown.find((s) => s.id === dragged);
    setDragged(null);
    if (!stage) return;
    const position = dropPosition(shown, stage.id, targetId);
    if (position !== null) void moveTo(stage, position);
  };

  return (
    <section aria-labelledby="stages-title">
      <h3 id="stages-title">Stages</h3>
      <p class="hint">
        In the order deals move through them. Drag a stage onto another to put it there, or use its Up and Down buttons.
      </p>
      <ErrorMessage error={stages.error} />
      <ErrorMessage error={move.error} />
      {stages.loading && !stages.data && <p role="status">Loading stages…</p>}
      {stages.data && shown.length === 0 && <p>This pipeline has no stages yet: add one below.</p>}
      <ol class="stage-list" ref={list}>
        {shown.map((s, i) => (
          <StageRow
            key={s.id}
            stage={s}
            index={i}
            count={shown.length}
            pipelineId={pipelineId}
            dragging={dragged === s.id}
            onMove={onMove}
            onDragStart={setDragged}
            onDrop={onDrop}
            onChanged={reload}
          />
        ))}
      </ol>
      <p role="status" class="hint">
        {said}
      </p>
      {stages.data && <AddStageForm pipelineId={pipelineId} full={shown.length >= MAX_STAGES} onAdded={reload} />}
    </section>
  );
}

function PipelineEditor({ pipeline, onChanged }: { pipeline: PipelineSummary; onChanged: () => Promise<void> }) {
  const makeDefault = useAction();
  return (
    <section class="panel" aria-labelledby="pipeline-title">
      <div class="title-row">
        <h2 id="pipeline-title">{pipeline.name}</h2>
        {pipeline.is_default ? (
          <span class="badge">Default pipeline</span>
        ) : (
          <button
            type="button"
            disabled={makeDefault.busy}
            onClick={() =>
              makeDefault.run(async () => {
                await updatePipeline(pipeline, { is_default: true });
                await onChanged();
              })
            }
          >
            Make default
          </button>
        )}
        <a href={`/dashboard/pipeline?pipeline=${encodeURIComponent(pipeline.id)}`}>Open its board</a>
      </div>
      <ErrorMessage error={makeDefault.error} />
      <dl class="settings">
        <div>
          <dt>Name</dt>
          <dd>
            <InlineEdit
              label="pipeline name"
              value={pipeline.name}
              onSave={async (name) => {
                await updatePipeline(pipeline, { name });
                await onChanged();
              }}
            >
              {pipeline.name}
            </InlineEdit>
          </dd>
        </div>
      </dl>
      <StageList key={pipeline.id} pipelineId={pipeline.id} />
    </section>
  );
}

export function PipelinesPage() {
  useTitle('Pipelines and stages');
  const { query } = useLocation();
  const pipelines = useQuery(loadPipelines, []);
  const [chosen, setChosen] = useState<string | null>(query.id ?? null);
  const list = pipelines.data ?? [];
  const current = list.find((p) => p.id === chosen) ?? list.find((p) => p.is_default) ?? list[0];

  const choose = (id: string) => {
    // Kept in the URL, so reload, back and a shared link open the same pipeline.
    history.replaceState(null, '', `?id=${encodeURIComponent(id)}`);
    setChosen(id);
  };

  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/pipeline">Pipeline</a> /
      </p>
      <div class="title-row">
        <h1>Pipelines and stages</h1>
        {list.length > 1 && (
          <InlineSelect
            label="Pipeline"
            value={current?.id}
            choices={list.map((p) => ({ value: p.id, label: p.is_default ? `${p.name} (default)` : p.name }))}
            onChange={choose}
          />
        )}
      </div>
      <ErrorMessage error={pipelines.error} />
      {pipelines.loading && !pipelines.data && <p role="status">Loading…</p>}
      {pipelines.data && !current && <p>This workspace has no pipeline yet: create one below.</p>}
      {current && <PipelineEditor key={current.id} pipeline={current} onChanged={pipelines.reload} />}
      <section class="panel">
        <NewPipelineForm
          onCreated={(p) => {
            choose(p.id);
            void pipelines.reload();
          }}
        />
      </section>
    </>
  );
}
