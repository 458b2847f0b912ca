// Every setting of a subscription. Limits mirror the server's (webhook.inputs.ts); the server
// still validates and its field errors are shown as they come.
import { useState } from 'preact/hooks';
import { ACCEPTED_EVENTS, EMITTED_EVENTS } from '../../events/names.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { hasFilters, type Webhook } from './webhook-model.ts';

export type WebhookInput = Record<string, unknown>;

interface Header {
  name: string;
  value: string;
}

const GROUPS = ['contact', 'deal', 'task', 'activity'];
const emitted = new Set<string>(EMITTED_EVENTS);
const eventsOf = (group: string) => EMITTED_EVENTS.filter((e) => e.startsWith(`${group}.`));
const notYetEmitted = ACCEPTED_EVENTS.filter((e) => !emitted.has(e));

function EventGroup({
  legend,
  events,
  chosen,
  onChange,
}: {
  legend: string;
  events: readonly string[];
  chosen: Set<string>;
  onChange: (next: Set<string>) => void;
}) {
  const all = events.every((e) => chosen.has(e));
  const set = (names: readonly string[], on: boolean) => {
    const next = new Set(chosen);
    for (const n of names) on ? next.add(n) : next.delete(n);
    onChange(next);
  };
  return (
    <fieldset class="event-group">
      <legend>{legend}</legend>
      <label class="inline all">
        <input type="checkbox" checked={all} onChange={(e) => set(events, e.currentTarget.checked)} />
        All {legend.toLowerCase()} events
      </label>
      {events.map((e) => (
        <label class="inline" key={e}>
          <input
            type="checkbox"
            name="events"
            value={e}
            checked={chosen.has(e)}
            onChange={(ev) => set([e], ev.currentTarget.checked)}
          />
          <code>{e}</code>
        </label>
      ))}
    </fieldset>
  );
}

const numberOrUndefined = (s: string) => (s.trim() === '' ? undefined : Number(s));

export function WebhookForm({
  initial,
  submitLabel,
  onSubmit,
}: {
  initial?: Webhook;
  submitLabel: string;
  onSubmit: (input: WebhookInput) => Promise<void>;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [events, setEvents] = useState(new Set(initial?.events ?? []));
  const [method, setMethod] = useState(initial?.http_method ?? 'POST');
  const [contentType, setContentType] = useState(initial?.content_type ?? 'json');
  const [headers, setHeaders] = useState<Header[]>(
    Object.entries(initial?.headers ?? {}).map(([n, v]) => ({ name: n, value: v })),
  );
  const [timeout, setTimeoutSeconds] = useState(String(initial?.timeout_seconds ?? 30));
  const [maxRetries, setMaxRetries] = useState(String(initial?.retry_policy.max_retries ?? 5));
  const [intervals, setIntervals] = useState(
    (initial?.retry_policy.intervals_seconds ?? [5, 30, 120, 900, 3600]).join(', '),
  );
  const [autoDisable, setAutoDisable] = useState(String(initial?.auto_disable_after ?? 10));
  const [payloadFormat, setPayloadFormat] = useState(initial?.payload_format ?? 'event');
  const [active, setActive] = useState(initial?.active ?? true);
  const [filters, setFilters] = useState(initial && hasFilters(initial) ? JSON.stringify(initial.filters) : '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const setHeader = (i: number, change: Partial<Header>) =>
    setHeaders(headers.map((h, j) => (j === i ? { ...h, ...change } : h)));

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    let parsedFilters: unknown = null;
    if (filters.trim()) {
      try {
        parsedFilters = JSON.parse(filters);
      } catch {
        setError(new Error('Filters must be a JSON object, e.g. {"pipeline_id": "pipe_…"}'));
        return;
      }
    }
    const intervalList = intervals
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number);
    const input: WebhookInput = {
      name: name.trim() || null,
      url,
      description: description.trim() || null,
      events: [...events],
      http_method: method,
      content_type: contentType,
      headers: Object.fromEntries(headers.filter((h) => h.name.trim()).map((h) => [h.name.trim(), h.value])),
      timeout_seconds: numberOrUndefined(timeout),
      retry_policy: {
        max_retries: Number(maxRetries),
        ...(intervalList.length ? { intervals_seconds: intervalList } : {}),
      },
      auto_disable_after: numberOrUndefined(autoDisable),
      payload_format: payloadFormat,
      active,
      filters: parsedFilters,
    };
    setBusy(true);
    try {
      await onSubmit(input);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack webhook-form">
      <div class="columns">
        <label>
          Name
          <input name="name" maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          URL
          <input
            name="url"
            type="url"
            required
            value={url}
            placeholder="https://example.com/hooks/crm"
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Description <span class="hint">(optional)</span>
        <textarea
          name="description"
          rows={2}
          maxLength={10000}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <fieldset class="wide">
        <legend>Events ({events.size} chosen)</legend>
        <div class="event-groups">
          {GROUPS.map((g) => (
            <EventGroup
              key={g}
              legend={`${g[0].toUpperCase()}${g.slice(1)}`}
              events={eventsOf(g)}
              chosen={events}
              onChange={setEvents}
            />
          ))}
        </div>
        <details>
          <summary>Events from the API reference that are not sent yet</summary>
          <EventGroup legend="Other" events={notYetEmitted} chosen={events} onChange={setEvents} />
        </details>
      </fieldset>
      <div class="columns">
        <label>
          HTTP method
          <select name="http_method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            <option>POST</option>
            <option>PUT</option>
            <option>PATCH</option>
          </select>
        </label>
        <label>
          Content type
          <select name="content_type" value={contentType} onChange={(e) => setContentType(e.currentTarget.value)}>
            <option value="json">application/json</option>
            <option value="form">application/x-www-form-urlencoded</option>
          </select>
        </label>
        <label>
          Payload
          <select name="payload_format" value={payloadFormat} onChange={(e) => setPayloadFormat(e.currentTarget.value)}>
            <option value="event">Event envelope (id, event, data)</option>
            <option value="record">The record only</option>
          </select>
        </label>
      </div>
      <fieldset class="wide">
        <legend>Custom headers (at most 20)</legend>
        {headers.map((h, i) => (
          <div class="header-row" key={i}>
            <label>
              Header name
              <input value={h.name} maxLength={64} onInput={(e) => setHeader(i, { name: e.currentTarget.value })} />
            </label>
            <label>
              Value
              <input value={h.value} maxLength={2048} onInput={(e) => setHeader(i, { value: e.currentTarget.value })} />
            </label>
            <button
              type="button"
              onClick={() => setHeaders(headers.filter((_, j) => j !== i))}
              aria-label={`Remove header ${h.name || i + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          disabled={headers.length >= 20}
          onClick={() => setHeaders([...headers, { name: '', value: '' }])}
        >
          Add header
        </button>
      </fieldset>
      <div class="columns">
        <label>
          Timeout (seconds, 5–60)
          <input
            name="timeout_seconds"
            type="number"
            min={5}
            max={60}
            required
            value={timeout}
            onInput={(e) => setTimeoutSeconds(e.currentTarget.value)}
          />
        </label>
        <label>
          Retries (0–10)
          <input
            name="max_retries"
            type="number"
            min={0}
            max={10}
            required
            value={maxRetries}
            onInput={(e) => setMaxRetries(e.currentTarget.value)}
          />
        </label>
        <label>
          Seconds between retries <span class="hint">(comma-separated; the last repeats)</span>
          <input
            name="intervals_seconds"
            value={intervals}
            pattern="^\s*\d+(\s*,\s*\d+)*\s*$"
            onInput={(e) => setIntervals(e.currentTarget.value)}
          />
        </label>
        <label>
          Turn off after this many failures in a row (1–1000)
          <input
            name="auto_disable_after"
            type="number"
            min={1}
            max={1000}
            required
            value={autoDisable}
            onInput={(e) => setAutoDisable(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Filters{' '}
        <span class="hint">(optional JSON: only events whose record matches, e.g. {'{"pipeline_id": "pipe_…"}'})</span>
        <input name="filters" class="mono" value={filters} onInput={(e) => setFilters(e.currentTarget.value)} />
      </label>
      <label class="inline">
        <input type="checkbox" name="active" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
        Active (deliveries are kept while inactive and sent when it is turned on again)
      </label>
      <ErrorMessage error={error} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
