// A deal on the board: draggable from anywhere on the card (its title link too), with a "Move to…"
// select as the keyboard way to change stage. The title opens the deal's page.
import { formatMoney, fullName } from '../lib/format.ts';
import type { BoardDeal, Stage } from './pipeline-model.ts';

export type DealAction = { kind: 'move'; deal: BoardDeal; stage: Stage } | { kind: 'won' | 'lost'; deal: BoardDeal };

export function DealCard({
  deal,
  stages,
  onAction,
}: {
  deal: BoardDeal;
  stages: Stage[];
  onAction: (a: DealAction) => void;
}) {
  const open = deal.status === 'open';
  return (
    <li
      class={`card ${deal.status}`}
      data-deal-id={deal.id}
      draggable
      aria-label={deal.title}
      onDragStart={(e) => {
        e.dataTransfer?.setData('text/plain', deal.id);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
      }}
    >
      <div class="card-title">
        <a href={`/dashboard/deals/${deal.id}`} draggable={false}>
          {deal.title}
        </a>
      </div>
      <div class="card-meta">
        <span>{formatMoney(deal.value, deal.currency)}</span>
        {deal.contact && <span>{fullName(deal.contact)}</span>}
        {!open && <span class={`badge ${deal.status === 'won' ? 'ok' : 'off'}`}>{deal.status}</span>}
      </div>
      <div class="card-actions">
        <label>
          <span class="visually-hidden">Move {deal.title} to</span>
          <select
            value=""
            onChange={(e) => {
              const stage = stages.find((s) => s.id === e.currentTarget.value);
              e.currentTarget.value = '';
              if (stage) onAction({ kind: 'move', deal, stage });
            }}
          >
            <option value="">Move to…</option>
            {stages
              .filter((s) => s.id !== deal.stage_id)
              .map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
          </select>
        </label>
        {open && (
          <>
            <button
              type="button"
              class="small"
              onClick={() => onAction({ kind: 'won', deal })}
              aria-label={`Mark ${deal.title} won`}
            >
              Won
            </button>
            <button
              type="button"
              class="small"
              onClick={() => onAction({ kind: 'lost', deal })}
              aria-label={`Mark ${deal.title} lost`}
            >
              Lost
            </button>
          </>
        )}
      </div>
    </li>
  );
}
