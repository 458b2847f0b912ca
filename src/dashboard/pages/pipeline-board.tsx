// The pipeline board: stages as columns of open deals with their totals and the weighted forecast;
// won and lost deals in lists of their own (the "Show" filter, kept in the URL). Moves by drag and
// drop or the card's "Move to…" select; other clients' changes arrive over the dealChanged subscription.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { subscribe } from '../api/live.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { PromptDialog } from '../components/prompt-dialog.tsx';
import { formatDateTime, formatMoney, formatSums, fullName } from '../lib/format.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { DealCard, type DealAction } from './deal-card.tsx';
import { NewDealDialog } from './new-deal-dialog.tsx';
import {
  closeDeal,
  type Board,
  type DealStatus,
  loadBoard,
  moveDeal,
  type Stage,
  sumValues,
  weightedForecast,
} from './pipeline-model.ts';
import { ScrollBox } from '../components/scroll-box.tsx';
import { InlineSelect } from '../components/inline-select.tsx';

/** Bursts of events (a bulk change) cause one reload. */
const RELOAD_DELAY_MS = 150;

const STATUSES: { value: DealStatus; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
];

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
  currency: string;
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
          <span data-testid="deal-count">{deals.length}</span> {deals.length === 1 ? 'deal' : 'deals'} ·{' '}
          <span data-testid="column-total">{formatSums(sumValues(deals), currency)}</span> ·{' '}
          <span title="Win probability of the stage">{stage.probability}%</span>
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

/** Won or lost deals: a list with when and why they closed. */
function ClosedDeals({ board, status, currency }: { board: Board; status: 'won' | 'lost'; currency: string }) {
  const stageName = new Map(board.stages.map((s) => [s.id, s.name]));
  if (board.deals.length === 0) return <p>No {status} deals in this pipeline.</p>;
  return (
    <>
      <p class="forecast">
        {board.deals.length} {status} {board.deals.length === 1 ? 'deal' : 'deals'} ·{' '}
        <strong data-testid="closed-total">{formatSums(sumValues(board.deals), currency)}</strong>
      </p>
      <ScrollBox label="Closed deals">
        <table class="closed-deals">
          <thead>
            <tr>
              <th>Deal</th>
              <th>Value</th>
              <th>Stage</th>
              <th>Closed</th>
              <th>{status === 'won' ? 'Why it was won' : 'Why it was lost'}</th>
            </tr>
          </thead>
          <tbody>
            {board.deals.map((d) => (
              <tr key={d.id} data-deal-id={d.id}>
                <td>
                  <a href={`/dashboard/deals/${d.id}`}>{d.title}</a>
                  {d.contact && <div class="hint">{fullName(d.contact)}</div>}
                </td>
                <td>{formatMoney(d.value, d.currency)}</td>
                <td>{stageName.get(d.stage_id) ?? '—'}</td>
                <td>{formatDateTime(d.closed_at)}</td>
                <td>{(status === 'won' ? d.won_reason : d.lost_reason) ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}

function BoardView({ pipelineId, status }: { pipelineId: string; status: DealStatus }) {
  const board = useQuery(() => loadBoard(pipelineId, status), [pipelineId, status]);
  const [action, setAction] = useState<DealAction | null>(null);
  const [creating, setCreating] = useState(false);
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
  const currency = data?.deals[0]?.currency ?? 'USD';
  const forecast = data ? formatSums(weightedForecast(data.deals, data.stages), currency) : '';

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
      {board.loading && !data && <p role="status">Loading…</p>}
      {data?.truncated && (
        <p class="hint">This pipeline has more deals than the board shows (the most recently updated are shown).</p>
      )}
      {data && status === 'open' && (
        <>
          <div class="actions board-summary">
            <p class="forecast">
              Weighted forecast: <strong data-testid="forecast">{forecast}</strong>{' '}
              <span class="hint">
                (value × stage probability of {data.deals.length} open {data.deals.length === 1 ? 'deal' : 'deals'})
              </span>
            </p>
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              New deal
            </button>
          </div>
          {data.deals.length === 0 && <p>No open deals yet: create one with “New deal”.</p>}
          <div class="board">
            {data.stages.map((s) => (
              <Column key={s.id} stage={s} board={data} currency={currency} onAction={setAction} />
            ))}
          </div>
        </>
      )}
      {data && status !== 'open' && <ClosedDeals board={data} status={status} currency={currency} />}
      {creating && data && (
        <NewDealDialog
          pipelines={[{ id: pipelineId, name: '', stages: data.stages }]}
          onCreated={() => void board.reload()}
          onClose={() => setCreating(false)}
        />
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

const statusOf = (value: string | undefined): DealStatus => (value === 'won' || value === 'lost' ? value : 'open');

export function PipelineBoardPage() {
  useTitle('Pipeline');
  const { query } = useLocation();
  const pipelines = useQuery(
    () =>
      gql<{ pipelines: { nodes: Pipeline[] } }>('{ pipelines(limit: 100) { nodes { id name is_default } } }').then(
        (d) => d.pipelines.nodes,
      ),
    [],
  );
  const [chosen, setChosen] = useState<string | null>(query.pipeline ?? null);
  const [status, setStatus] = useState<DealStatus>(statusOf(query.status));
  const list = pipelines.data ?? [];
  const current = list.find((p) => p.id === chosen) ?? list.find((p) => p.is_default) ?? list[0];

  const show = (next: DealStatus) => {
    // Kept in the URL, so reload, back and a shared link show the same deals.
    history.replaceState(null, '', next === 'open' ? location.pathname : `?status=${next}`);
    setStatus(next);
  };

  return (
    <>
      <div class="title-row">
        <h1>{current ? current.name : 'Pipeline'}</h1>
        <fieldset class="segmented">
          <legend class="visually-hidden">Show</legend>
          {STATUSES.map((s) => (
            <label key={s.value} class="inline">
              <input
                type="radio"
                name="deal-status"
                value={s.value}
                checked={status === s.value}
                onChange={() => show(s.value)}
              />
              {s.label}
            </label>
          ))}
        </fieldset>
        {list.length > 1 && (
          <InlineSelect
            label="Pipeline"
            value={current?.id}
            choices={list.map((p) => ({ value: p.id, label: p.name }))}
            onChange={setChosen}
          />
        )}
        <a href={current ? `/dashboard/pipelines?id=${encodeURIComponent(current.id)}` : '/dashboard/pipelines'}>
          Edit pipelines and stages
        </a>
      </div>
      <ErrorMessage error={pipelines.error} />
      {pipelines.loading && !pipelines.data && <p role="status">Loading…</p>}
      {pipelines.data && !current && <p>This workspace has no pipeline yet.</p>}
      {current && <BoardView key={current.id} pipelineId={current.id} status={status} />}
    </>
  );
}
