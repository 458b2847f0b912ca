// A field shown as text with an Edit button that turns it into an input in place. Enter saves,
// Escape cancels; focus returns to the Edit button either way.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from './error-message.tsx';

export interface InlineEditProps {
  label: string;
  /** What is shown while not editing. */
  children: ComponentChildren;
  /** The input's starting text. */
  value: string;
  type?: 'text' | 'number' | 'date';
  /** Renders a select instead of an input. */
  options?: { value: string; label: string }[];
  onSave(value: string): Promise<void>;
}

export function InlineEdit({ label, children, value, type = 'text', options, onSave }: InlineEditProps) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(value);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);

  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const start = () => {
    setText(value);
    setError(null);
    setEditing(true);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSave(text.trim());
      setEditing(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <span class="inline-edit">
        <span>{children}</span>
        <button type="button" class="small" ref={editButton} onClick={start} aria-label={`Edit ${label}`}>
          Edit
        </button>
      </span>
    );
  }
  const cancelOnEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    setEditing(false);
  };
  return (
    <form class="inline-edit editing" onSubmit={save}>
      {options ? (
        <select
          aria-label={label}
          value={text}
          autoFocus
          onKeyDown={cancelOnEscape}
          onChange={(e) => setText(e.currentTarget.value)}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          aria-label={label}
          // Preact's types tie attributes to one literal type; step is ignored by text and date inputs.
          type={type as 'number'}
          step="any"
          value={text}
          autoFocus
          onKeyDown={cancelOnEscape}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      )}
      <button type="submit" class="small primary" disabled={busy}>
        Save
      </button>
      <button type="button" class="small" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}
