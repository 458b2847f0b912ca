// The pipeline board: stages as columns, deals as cards. Moves by drag and drop or the card's
// "Move to…" select; other clients' changes arrive over the dealChanged subscription.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { subscribe } from '../api/live.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { PromptDialog } from '../components/prompt-dialog.tsx';
import { formatMoney } from '../lib/format.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { DealCard, type DealAction } from './deal-card.tsx';
import { closeDeal, loadBoard, moveDeal, type Board, type Stage } from './pipeline-model.ts';

/** Bursts of events (a bulk change) cause one reload. */
const RELOAD_DELAY_MS = 150;

interface Pipeline {
  id: string;
  name: string;
  is_default: boolean;
}

function Column({
  stage,
  board,
  currency,
  onAction,
}: {
  stage: Stage;
  board: Board;
  currency: string | null;
  onAction: (a: DealAction) => void;
}) {
  const [over, setOver] = useState(false);
  const deals = board.deals.filter((d) => d.stage_id === stage.id);
  const accept = (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes('text/plain')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    setOver(true);
  };
  return (
    <section
      class={over ? 'column drop-target' : 'column'}
      data-stage-id={stage.id}
      aria-labelledby={`stage-${stage.id}`}
      onDragOver={accept}
      onDragEnter={accept}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const deal = board.deals.find((d) => d.id === e.dataTransfer?.getData('text/plain'));
        if (deal && deal.stage_id !== stage.id) onAction({ kind: 'move', deal, stage });
      }}
    >
      <header>
        <h2 id={`stage-${stage.id}`}>{stage.name}</h2>
        <p class="totals">
          <span data-testid="deal-count">{stage.deal_count}</span> {stage.deal_count === 1 ? 'deal' : 'deals'} ·{' '}
          {currency ? formatMoney(stage.total_value, currency) : stage.total_value.toLocaleString()}
        </p>
      </header>
      <ul class="cards">
        {deals.map((d) => (
          <DealCard key={d.id} deal={d} stages={board.stages} onAction={onAction} />
        ))}
      </ul>
    </section>
  );
}

function BoardView({ pipelineId }: { pipelineId: string }) {
  const board = useQuery(() => loadBoard(pipelineId), [pipelineId]);
  const [action, setAction] = useState<DealAction | null>(null);
  const [live, setLive] = useState<string>('connecting');

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = subscribe(
      'subscription ($id: ID) { dealChanged(pipelineId: $id) { event deal_id } }',
      { id: pipelineId },
      {
        onData: () => {
          clearTimeout(timer);
          timer = setTimeout(() => void board.reload(), RELOAD_DELAY_MS);
        },
        onError: (message) => setLive(message),
        onConnection: (up) => setLive(up ? 'on' : 'connecting'),
      },
    );
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [pipelineId]);

  const data = board.data;
  const currencies = new Set(data?.deals.map((d) => d.currency));
  const currency = currencies.size <= 1 ? ([...currencies][0] ?? 'USD') : null;

  return (
    <>
      <p class="hint live" role="status">
        {live === 'on'
          ? 'Live: changes by others appear here as they happen.'
          : live === 'connecting'
            ? 'Connecting for live updates…'
            : `Live updates unavailable: ${live}`}
      </p>
      <ErrorMessage error={board.error} />
      {data?.truncated && (
        <p class="hint">This pipeline has more deals than the board shows (the most recently updated are shown).</p>
      )}
      {data && (
        <div class="board">
          {data.stages.map((s) => (
            <Column key={s.id} stage={s} board={data} currency={currency} onAction={setAction} />
          ))}
        </div>
      )}
      {action?.kind === 'move' && (
        <PromptDialog
          title={`Move “${action.deal.title}” to ${action.stage.name}`}
          fieldLabel="Note for the stage history"
          submitLabel="Move"
          onSubmit={async (note) => {
            await moveDeal(action.deal.id, action.stage.id, note);
            await board.reload();
          }}
          onClose={() => setAction(null)}
        />
      )}
      {(action?.kind === 'won' || action?.kind === 'lost') && (
        <PromptDialog
          title={`Mark “${action.deal.title}” ${action.kind}`}
          fieldLabel={action.kind === 'won' ? 'Why it was won' : 'Why it was lost'}
          submitLabel={action.kind === 'won' ? 'Mark won' : 'Mark lost'}
          onSubmit={async (reason) => {
            await closeDeal(action.deal.id, action.kind as 'won' | 'lost', reason);
            await board.reload();
          }}
          onClose={() => setAction(null)}
        />
      )}
    </>
  );
}

export function PipelineBoardPage() {
  useTitle('Pipeline');
  const pipelines = useQuery(
    () =>
      gql<{ pipelines: { nodes: Pipeline[] } }>('{ pipelines(limit: 100) { nodes { id name is_default } } }').then(
        (d) => d.pipelines.nodes,
      ),
    [],
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const list = pipelines.data ?? [];
  const current = list.find((p) => p.id === chosen) ?? list.find((p) => p.is_default) ?? list[0];

  return (
    <>
      <div class="title-row">
        <h1>{current ? current.name : 'Pipeline'}</h1>
        {list.length > 1 && (
          <label class="inline-field">
            Pipeline
            <select value={current?.id} onChange={(e) => setChosen(e.currentTarget.value)}>
              {list.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <ErrorMessage error={pipelines.error} />
      {pipelines.data && !current && <p>This workspace has no pipeline yet.</p>}
      {current && <BoardView key={current.id} pipelineId={current.id} />}
    </>
  );
}
