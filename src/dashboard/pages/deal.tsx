// One deal: its fields (title, value, expected close date, owner and stage edit in place), won and
// lost with a reason, its stage history, contacts with their roles (added by search, removed), and
// its activities (logged from here). Changes made elsewhere arrive over the dealChanged subscription.
import { useEffect, useState } from 'preact/hooks';
import { subscribe } from '../api/live.ts';
import { type ContactOption, ContactCombobox } from '../components/contact-combobox.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { InlineEdit } from '../components/inline-edit.tsx';
import { PromptDialog } from '../components/prompt-dialog.tsx';
import { formatDateTime, formatMoney, fullName } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useCursorPages } from '../lib/use-cursor-pages.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { LogActivity } from './record-actions.tsx';
import {
  type Activity,
  addDealContact,
  type Deal,
  loadActivities,
  loadDeal,
  loadUsers,
  moveDealToStage,
  removeDealContact,
  updateDeal,
} from './deal-model.ts';

function Activities({ dealId }: { dealId: string }) {
  const {
    first,
    items: entries,
    error,
    hasMore,
    loadMore,
  } = useCursorPages<Activity>((cursor) => loadActivities(dealId, cursor), [dealId]);
  return (
    <section aria-labelledby="activities">
      <h2 id="activities">Activities</h2>
      <details class="contact-actions">
        <summary>Log an activity</summary>
        <LogActivity about={{ deal_id: dealId }} onDone={() => void first.reload()} />
      </details>
      <ErrorMessage error={error} />
      {first.loading && !first.data && <p role="status">Loading…</p>}
      <ol class="timeline">
        {entries.map((a) => (
          <li key={a.id}>
            <time dateTime={a.occurred_at}>{formatDateTime(a.occurred_at)}</time>
            <span class="summary">{a.subject ?? a.type}</span>
            {a.description && <span>{a.description}</span>}
            <span class="hint">
              <code>{a.type}</code>
              {a.outcome && ` · ${a.outcome}`}
              {a.duration !== null && ` · ${a.duration} min`}
            </span>
          </li>
        ))}
        {first.data && entries.length === 0 && <li>No activities logged for this deal yet.</li>}
      </ol>
      {hasMore && (
        <button type="button" onClick={loadMore}>
          Show older
        </button>
      )}
    </section>
  );
}

function StageHistory({ deal }: { deal: Deal }) {
  return (
    <section aria-labelledby="stage-history">
      <h2 id="stage-history">Stage history</h2>
      <ol class="timeline">
        {[...deal.stage_history].reverse().map((h) => (
          <li key={h.changed_at + h.to_stage_name}>
            <time dateTime={h.changed_at}>{formatDateTime(h.changed_at)}</time>
            <span class="summary">
              {h.from_stage_name ? `${h.from_stage_name} → ${h.to_stage_name}` : `Created in ${h.to_stage_name}`}
            </span>
            {h.note && <span>{h.note}</span>}
            {h.changed_by && <span class="hint">by {h.changed_by.name}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

function AddContact({ deal, onChanged }: { deal: Deal; onChanged: () => Promise<void> }) {
  const [contact, setContact] = useState<ContactOption | null>(null);
  const [role, setRole] = useState('');
  const [round, setRound] = useState(0);
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    if (!contact) return;
    void run(async () => {
      await addDealContact(deal.id, contact.id, role.trim());
      setContact(null);
      setRole('');
      setRound((n) => n + 1);
      await onChanged();
    });
  };
  return (
    <form onSubmit={submit} class="stack add-deal-contact" aria-labelledby="add-deal-contact">
      <h3 id="add-deal-contact">Add a contact</h3>
      <div class="field-grid">
        <ContactCombobox key={round} id="deal-contact-search" label="Contact" picked={contact} onPick={setContact} />
        <label>
          <span>
            Role <span class="hint">(optional: champion, decision maker…)</span>
          </span>
          <input
            name="deal-contact-role"
            value={role}
            maxLength={255}
            onInput={(e) => setRole(e.currentTarget.value)}
          />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || !contact}>
          {busy ? 'Adding…' : 'Add to deal'}
        </button>
      </div>
    </form>
  );
}

function Contacts({ deal, onChanged }: { deal: Deal; onChanged: () => Promise<void> }) {
  const remove = useAction();
  return (
    <section aria-labelledby="deal-contacts">
      <h2 id="deal-contacts">Contacts</h2>
      {deal.contacts.length === 0 ? (
        <p>No contacts are associated with this deal.</p>
      ) : (
        <ul class="plain deal-contacts">
          {deal.contacts.map((c) => (
            <li key={c.contact_id}>
              <span>
                <a href={`/dashboard/contacts/${c.contact_id}`}>{fullName(c)}</a>
                {c.role && ` · ${c.role}`}
                {c.is_primary && (
                  <>
                    {' '}
                    <span class="badge">primary</span>
                  </>
                )}
              </span>
              <button
                type="button"
                class="small"
                disabled={remove.busy}
                aria-label={`Remove ${fullName(c)} from the deal`}
                onClick={() =>
                  remove.run(async () => {
                    await removeDealContact(deal.id, c.contact_id);
                    await onChanged();
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={remove.error} />
      <AddContact deal={deal} onChanged={onChanged} />
    </section>
  );
}

function Fields({ deal, onSaved }: { deal: Deal; onSaved: (d: Deal) => void }) {
  const users = useQuery(loadUsers, []);
  const save = (input: Record<string, unknown>) => updateDeal(deal, input).then(onSaved);
  const owners = [
    { value: '', label: 'No owner' },
    ...(users.data ?? [])
      .filter((u) => u.active || u.id === deal.owner_id)
      .map((u) => ({ value: u.id, label: u.name })),
  ];
  const closedReason = deal.status === 'won' ? deal.won_reason : deal.status === 'lost' ? deal.lost_reason : null;
  return (
    <dl class="settings deal-fields">
      <div>
        <dt>Title</dt>
        <dd>
          <InlineEdit label="title" value={deal.title} onSave={(title) => save({ title })}>
            {deal.title}
          </InlineEdit>
        </dd>
      </div>
      <div>
        <dt>Value</dt>
        <dd>
          <InlineEdit
            label="value"
            type="number"
            value={deal.value === null ? '' : String(deal.value)}
            onSave={(v) => save({ value: v === '' ? null : Number(v) })}
          >
            <span data-testid="deal-value">{deal.value === null ? '—' : formatMoney(deal.value, deal.currency)}</span>
          </InlineEdit>
        </dd>
      </div>
      <div>
        <dt>Expected close</dt>
        <dd>
          <InlineEdit
            label="expected close date"
            type="date"
            value={deal.expected_close_date ?? ''}
            onSave={(v) => save({ expected_close_date: v || null })}
          >
            {deal.expected_close_date ?? '—'}
          </InlineEdit>
        </dd>
      </div>
      <div>
        <dt>Owner</dt>
        <dd>
          <InlineEdit
            label="owner"
            value={deal.owner_id ?? ''}
            options={owners}
            onSave={(v) => save({ owner_id: v || null })}
          >
            {deal.owner?.name ?? '—'}
          </InlineEdit>
          <ErrorMessage error={users.error} />
        </dd>
      </div>
      <div>
        <dt>Stage</dt>
        <dd>
          <InlineEdit
            label="stage"
            value={deal.stage_id}
            options={(deal.pipeline?.stages ?? []).map((s) => ({ value: s.id, label: s.name }))}
            onSave={async (stageId) => {
              if (stageId !== deal.stage_id) onSaved(await moveDealToStage(deal, stageId));
            }}
          >
            <span data-testid="deal-stage">{deal.stage_name}</span>
            {deal.pipeline && <span class="hint"> in {deal.pipeline.name}</span>}
          </InlineEdit>
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <span data-testid="deal-status">{deal.status}</span>
          {deal.closed_at && <span class="hint"> {formatDateTime(deal.closed_at)}</span>}
          {closedReason && <span> · {closedReason}</span>}
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>{formatDateTime(deal.created_at)}</dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd>{formatDateTime(deal.updated_at)}</dd>
      </div>
    </dl>
  );
}

export function DealPage({ id }: { id: string }) {
  const deal = useQuery(() => loadDeal(id), [id]);
  const [shown, setShown] = useState<Deal | null>(null);
  const [closing, setClosing] = useState<'won' | 'lost' | null>(null);
  const reopen = useAction();
  const d = shown?.id === id && deal.data && shown.version >= deal.data.version ? shown : deal.data;
  useTitle(d ? d.title : 'Deal');

  const pipelineId = d?.pipeline_id;
  useEffect(() => {
    if (!pipelineId) return;
    return subscribe<{ dealChanged: { deal_id: string } }>(
      'subscription ($id: ID) { dealChanged(pipelineId: $id) { event deal_id } }',
      { id: pipelineId },
      {
        onData: (data) => {
          if (data.dealChanged.deal_id === id) void deal.reload();
        },
      },
    );
  }, [pipelineId, id]);

  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/pipeline">Pipeline</a> /
      </p>
      {deal.loading && !d && <p role="status">Loading…</p>}
      <ErrorMessage error={deal.error} />
      {d && (
        <>
          <div class="title-row">
            <h1>
              {d.title}
              {d.status !== 'open' && <span class={`badge ${d.status === 'won' ? 'ok' : 'off'}`}>{d.status}</span>}
            </h1>
            <div class="actions">
              {d.status === 'open' ? (
                <>
                  <button type="button" onClick={() => setClosing('won')}>
                    Mark won
                  </button>
                  <button type="button" onClick={() => setClosing('lost')}>
                    Mark lost
                  </button>
                </>
              ) : (
                <button
                  type="button"
                  disabled={reopen.busy}
                  onClick={() => reopen.run(async () => setShown(await updateDeal(d, { status: 'open' })))}
                >
                  Reopen
                </button>
              )}
            </div>
          </div>
          <ErrorMessage error={reopen.error} />
          <div class="deal">
            <div>
              <Fields deal={d} onSaved={setShown} />
              <Contacts
                deal={d}
                onChanged={async () => {
                  // Associations leave the deal's version as it is: the page reads it again.
                  await deal.reload();
                  setShown(null);
                }}
              />
              <StageHistory deal={d} />
            </div>
            <Activities dealId={id} />
          </div>
          {closing && (
            <PromptDialog
              title={`Mark “${d.title}” ${closing}`}
              fieldLabel={closing === 'won' ? 'Why it was won' : 'Why it was lost'}
              submitLabel={closing === 'won' ? 'Mark won' : 'Mark lost'}
              onSubmit={async (reason) => {
                setShown(
                  await updateDeal(d, { status: closing, ...(reason ? { [`${closing}_reason`]: reason } : {}) }),
                );
              }}
              onClose={() => setClosing(null)}
            />
          )}
        </>
      )}
    </>
  );
}
