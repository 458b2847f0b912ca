// A field shown as text with an Edit button that turns it into an input in place. Enter saves,
// Escape cancels; focus returns to the Edit button either way.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
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
  /** Told when the editor opens and when it closes (or goes away open). */
  onEditing?(open: boolean): void;
}

export function InlineEdit({ label, children, value, type = 'text', options, onSave, onEditing }: InlineEditProps) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(value);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const wasEditing = useRef(false);

  // Preact leaves autofocus to the browser, which honours it only at page load or in a dialog.
  // A layout effect: focus moves in the same task that swaps the form for the text, so a key
  // pressed at once (or the removed form's focus falling to <body>) never finds it elsewhere.
  useLayoutEffect(() => {
    if (editing) form.current?.querySelector<HTMLElement>('input, select')?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  useEffect(() => {
    if (!editing) return;
    onEditing?.(true);
    return () => onEditing?.(false);
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
  // Enter saves a select too, as it does an input (a select has no implicit submission).
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      setEditing(false);
    } else if (e.key === 'Enter' && e.currentTarget instanceof HTMLSelectElement) {
      e.preventDefault();
      form.current?.requestSubmit();
    }
  };
  return (
    <form class="inline-edit editing" ref={form} onSubmit={save}>
      {options ? (
        <select aria-label={label} value={text} onKeyDown={keys} onChange={(e) => setText(e.currentTarget.value)}>
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
          onKeyDown={keys}
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
