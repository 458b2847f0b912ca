// Imports: a CSV or JSON Lines file of contacts, companies or deals, its columns (the keys of the
// objects, for JSON Lines) mapped to fields in the browser (the header row or the first lines are
// read here, before anything is sent), the job's progress live through the
// importProgress subscription, its failed rows as a download, and the recent jobs.
import { useEffect, useState } from 'preact/hooks';
import { IMPORT_RESOURCES, UPSERT_KEYS, type ImportResource } from '../../records/import.ts';
import { gql } from '../api/graphql.ts';
import { failedRowsUrl, uploadImport } from '../api/imports.ts';
import { subscribe } from '../api/live.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import {
  CONTENT_TYPES,
  formatEta,
  formatOf,
  fractionDone,
  guessField,
  headerOf,
  type ImportFormat,
  jsonKeysOf,
  mappingOf,
} from './import-model.ts';

interface Job {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  resource: ImportResource;
  mode: string;
  filename: string | null;
  rows_read: number;
  rows_written: number;
  rows_failed: number;
  bytes_read: number;
  bytes_total: number;
  rows_per_second: number | null;
  eta_seconds: number | null;
  created_at: string;
  error: { code: string; message: string } | null;
}

const JOB_FIELDS = `id status resource mode filename rows_read rows_written rows_failed bytes_read bytes_total
  rows_per_second eta_seconds created_at error { code message }`;

const RESOURCE_LABEL: Record<ImportResource, string> = { contacts: 'Contacts', companies: 'Companies', deals: 'Deals' };

/**
 * The header (CSV) or the first lines (JSON Lines) are in the file's first bytes; a header row
 * longer than this is no header a person maps.
 */
const HEADER_BYTES = 256 * 1024;

const STATUS_BADGE: Record<Job['status'], string> = {
  queued: 'badge wait',
  running: 'badge wait',
  completed: 'badge ok',
  failed: 'badge off',
};

function StatusBadge({ status }: { status: Job['status'] }) {
  return <span class={STATUS_BADGE[status]}>{status[0].toUpperCase() + status.slice(1)}</span>;
}

function ImportForm({
  fields,
  onQueued,
}: {
  fields: Record<string, string[]> | undefined;
  onQueued: (id: string) => void;
}) {
  const [resource, setResource] = useState<ImportResource>('contacts');
  const [mode, setMode] = useState<'create' | 'upsert'>('create');
  const [upsertBy, setUpsertBy] = useState<string>(UPSERT_KEYS.contacts[0]);
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>('csv');
  const [columns, setColumns] = useState<string[]>([]);
  const [asIs, setAsIs] = useState(false);
  const [fileNote, setFileNote] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [fileError, setFileError] = useState<string | null>(null);
  const { error, busy, run } = useAction();
  const offered = fields?.[resource] ?? [];

  // `chosen` holds what the person picked; a column not picked shows its guess. Derived while
  // rendering, not set by an effect after it, so a pick made right after the columns appear stays.
  const mapping = Object.fromEntries(columns.map((c) => [c, chosen[c] ?? guessField(c, offered)]));

  const chooseResource = (r: ImportResource) => {
    setResource(r);
    setUpsertBy(UPSERT_KEYS[r][0]);
    // Other fields: every column goes back to its guess among them.
    setChosen({});
  };

  const chooseFile = async (picked: File | null) => {
    setFile(picked);
    setColumns([]);
    setChosen({});
    setFileError(null);
    setFileNote(null);
    if (!picked) return;
    const kind = formatOf(picked);
    setFormat(kind);
    const start = await picked.slice(0, HEADER_BYTES).text();
    if (kind === 'jsonl') {
      const { keys, bad } = jsonKeysOf(start, picked.size <= HEADER_BYTES);
      if (keys.length === 0)
        setFileError(
          'The first lines hold no JSON object with keys: each line must be one object, such as {"email": "…"}.',
        );
      else if (bad > 0)
        setFileNote(`${bad} of the first lines ${bad === 1 ? 'is' : 'are'} not a JSON object: such lines fail alone.`);
      setColumns(keys);
      return;
    }
    const header = headerOf(start);
    if (header.length === 0) setFileError('The file has no header row: its first line must name the columns.');
    setColumns(header);
  };

  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    return run(async () => {
      const form = new FormData();
      // The settings before the file: a refusal comes before the file is sent whole.
      form.append('resource', resource);
      form.append('format', format);
      form.append('mode', mode);
      if (mode === 'upsert') form.append('upsert_by', upsertBy);
      // Without a mapping, each JSON line is the record's body as it is.
      if (!(format === 'jsonl' && asIs)) form.append('mapping', JSON.stringify(mappingOf(columns, mapping)));
      // The type the format has, whatever the browser guessed from the name (often none for .jsonl).
      form.append('file', new File([file], file.name, { type: CONTENT_TYPES[format] }));
      const job = await uploadImport(form);
      onQueued(job.id);
    });
  };

  return (
    <form onSubmit={submit} class="stack" aria-describedby="import-form-help">
      <p id="import-form-help" class="hint">
        A CSV file with a header row, or a JSON Lines file (.jsonl, .ndjson: one JSON object a line); UTF-8. Rows that
        cannot be imported fail alone and can be downloaded afterwards.
      </p>
      <label>
        File (CSV or JSON Lines)
        <input
          type="file"
          name="file"
          accept=".csv,text/csv,.jsonl,.ndjson,application/x-ndjson,application/jsonl"
          required
          onChange={(e) => void chooseFile(e.currentTarget.files?.[0] ?? null)}
        />
      </label>
      <div class="columns">
        <label>
          Records
          <select
            name="resource"
            value={resource}
            onChange={(e) => chooseResource(e.currentTarget.value as ImportResource)}
          >
            {IMPORT_RESOURCES.map((r) => (
              <option key={r} value={r}>
                {RESOURCE_LABEL[r]}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="segmented">
          <legend>Mode</legend>
          <label class="inline">
            <input type="radio" name="mode" checked={mode === 'create'} onChange={() => setMode('create')} />
            Create
          </label>
          <label class="inline">
            <input type="radio" name="mode" checked={mode === 'upsert'} onChange={() => setMode('upsert')} />
            Update or create
          </label>
        </fieldset>
        {mode === 'upsert' && (
          <label>
            Match records by
            <select name="upsert_by" value={upsertBy} onChange={(e) => setUpsertBy(e.currentTarget.value)}>
              {UPSERT_KEYS[resource].map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      {fileError && <p class="error-text">{fileError}</p>}
      {fileNote && <p class="hint">{fileNote}</p>}
      {format === 'jsonl' && columns.length > 0 && (
        <label class="inline">
          <input type="checkbox" name="as-is" checked={asIs} onChange={(e) => setAsIs(e.currentTarget.checked)} />
          Send each line as it is (its keys are the API's field names, nested objects included)
        </label>
      )}
      {columns.length > 0 && !(format === 'jsonl' && asIs) && (
        <div class="table-scroll">
          <table class="mapping">
            <caption>
              {format === 'jsonl' ? 'Keys of the first lines of' : 'Columns of'} {file?.name}
            </caption>
            <thead>
              <tr>
                <th scope="col">{format === 'jsonl' ? 'Key' : 'Column'}</th>
                <th scope="col">Field</th>
              </tr>
            </thead>
            <tbody>
              {columns.map((c, i) => (
                <tr key={`${i}:${c}`}>
                  <th scope="row">{c || <span class="muted">(unnamed)</span>}</th>
                  <td>
                    <select
                      aria-label={`Field for ${c}`}
                      value={mapping[c]}
                      disabled={!fields}
                      onChange={(e) => setChosen({ ...chosen, [c]: e.currentTarget.value })}
                    >
                      <option value="">{format === 'jsonl' ? '— skip this key —' : '— skip this column —'}</option>
                      {offered.map((f) => (
                        <option key={f} value={f}>
                          {f}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorMessage error={error} />
      <div>
        <button type="submit" class="primary" disabled={busy || !file || columns.length === 0}>
          {busy ? 'Sending…' : 'Import'}
        </button>
      </div>
    </form>
  );
}

function ImportProgress({ id, onOver }: { id: string; onOver: () => void }) {
  const [job, setJob] = useState<Job | null>(null);
  const [live, setLive] = useState<string>('connecting');

  useEffect(() => {
    setJob(null);
    return subscribe<{ importProgress: Job }>(
      `subscription ($id: ID!) { importProgress(id: $id) { ${JOB_FIELDS} } }`,
      { id },
      {
        onData: ({ importProgress }) => {
          setJob(importProgress);
          if (importProgress.status === 'completed' || importProgress.status === 'failed') onOver();
        },
        onError: (message) => setLive(message),
        onConnection: (up) => setLive(up ? 'on' : 'connecting'),
      },
    );
  }, [id]);

  const over = job?.status === 'completed' || job?.status === 'failed';
  const percent = job ? Math.round(fractionDone(job) * 100) : 0;
  return (
    <section class="panel import-progress" aria-labelledby="progress-title">
      <div class="title-row">
        <h2 id="progress-title">Import {job?.filename ? `of ${job.filename}` : id}</h2>
        {job && <StatusBadge status={job.status} />}
      </div>
      {!job && (
        <p role="status">{live === 'on' || live === 'connecting' ? 'Waiting for the job…' : `Not live: ${live}`}</p>
      )}
      {job && (
        <>
          <div class="progress-row">
            <progress max={100} value={percent} aria-labelledby="progress-title" aria-valuetext={`${percent} %`} />
            <span>{percent} %</span>
          </div>
          <dl class="settings">
            <div>
              <dt>Rows read</dt>
              <dd data-testid="rows-read">{job.rows_read}</dd>
            </div>
            <div>
              <dt>Written</dt>
              <dd data-testid="rows-written">{job.rows_written}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd data-testid="rows-failed">{job.rows_failed}</dd>
            </div>
            <div>
              <dt>Rows per second</dt>
              <dd>{job.rows_per_second ?? '—'}</dd>
            </div>
            <div>
              <dt>Time left</dt>
              <dd>{over ? '—' : formatEta(job.eta_seconds)}</dd>
            </div>
          </dl>
          <p role="status" class="hint">
            {job.status === 'completed'
              ? `Completed: ${job.rows_written} written, ${job.rows_failed} failed.`
              : job.status === 'failed'
                ? 'The import stopped.'
                : live === 'on'
                  ? 'Live.'
                  : live === 'connecting'
                    ? 'Connecting…'
                    : `Not live: ${live}`}
          </p>
          {job.error && <ErrorMessage error={new Error(job.error.message)} />}
          {job.rows_failed > 0 && (
            <p>
              <a class="button" href={failedRowsUrl(job.id)} download>
                Download failed rows ({job.rows_failed})
              </a>
            </p>
          )}
        </>
      )}
    </section>
  );
}

export function ImportsPage() {
  useTitle('Imports');
  const [watching, setWatching] = useState<string | null>(null);
  const fields = useQuery(
    () =>
      gql<{ importFields: { resource: ImportResource; fields: string[] }[] }>(
        '{ importFields { resource fields } }',
      ).then((d) => Object.fromEntries(d.importFields.map((s) => [s.resource, s.fields]))),
    [],
  );
  const list = useQuery(
    () =>
      gql<{ imports: { nodes: Job[] } }>(`{ imports(limit: 20) { nodes { ${JOB_FIELDS} } } }`).then(
        (d) => d.imports.nodes,
      ),
    [],
  );

  const queued = (id: string) => {
    setWatching(id);
    void list.reload();
  };

  return (
    <>
      <h1>Imports</h1>
      <p class="lead">Contacts, companies or deals from a CSV or JSON Lines file, read in the background.</p>
      <section class="panel" aria-labelledby="new-import">
        <h2 id="new-import">New import</h2>
        <ErrorMessage error={fields.error} />
        <ImportForm fields={fields.data} onQueued={queued} />
      </section>
      {watching && <ImportProgress id={watching} onOver={() => void list.reload()} />}
      <ErrorMessage error={list.error} />
      <div class="table-scroll">
        <table class="imports-table">
          <caption>Recent imports</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col" class="optional">
                Records
              </th>
              <th scope="col">Status</th>
              <th scope="col">Read</th>
              <th scope="col">Written</th>
              <th scope="col">Failed</th>
              <th scope="col" class="optional">
                Started
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data?.map((j) => (
              <tr key={j.id}>
                <td>
                  <button
                    type="button"
                    class="link"
                    onClick={() => setWatching(j.id)}
                    aria-label={`Progress of ${j.filename ?? j.id}`}
                  >
                    {j.filename ?? j.id}
                  </button>
                </td>
                <td class="optional">{RESOURCE_LABEL[j.resource]}</td>
                <td>
                  <StatusBadge status={j.status} />
                </td>
                <td>{j.rows_read}</td>
                <td>{j.rows_written}</td>
                <td>
                  {j.rows_failed > 0 ? (
                    <a
                      href={failedRowsUrl(j.id)}
                      download
                      aria-label={`${j.rows_failed} failed rows of ${j.filename ?? j.id}`}
                    >
                      {j.rows_failed}
                    </a>
                  ) : (
                    0
                  )}
                </td>
                <td class="optional">{formatDateTime(j.created_at)}</td>
              </tr>
            ))}
            {list.data?.length === 0 && (
              <tr>
                <td colSpan={7}>No imports yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {list.loading && !list.data && <p role="status">Loading…</p>}
    </>
  );
}
