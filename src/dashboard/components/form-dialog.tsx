// A modal form on the native <dialog> with the fields its caller gives: it keeps focus inside,
// Escape cancels, the API's refusal shows inside it, and the submit button says what will happen.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from './error-message.tsx';

export interface FormDialogProps {
  title: string;
  submitLabel: string;
  danger?: boolean;
  /** Disables the submit button (for example while the dialog still counts what it will act on). */
  disabled?: boolean;
  /** Focus starts on the submit button instead of the first field (the fields are optional). */
  focusSubmit?: boolean;
  children?: ComponentChildren;
  onSubmit(): Promise<void>;
  onClose(): void;
}

let ids = 0;

export function FormDialog(props: FormDialogProps) {
  const { title, submitLabel, danger, disabled, focusSubmit, children, onSubmit, onClose } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const [id] = useState(() => `form-dialog-${++ids}`);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    ref.current?.showModal();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit();
      ref.current?.close();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby={id}>
      <form onSubmit={submit} class="stack">
        <h2 id={id}>{title}</h2>
        {children}
        <ErrorMessage error={error} />
        <div class="actions">
          <button
            type="submit"
            class={danger ? 'danger' : 'primary'}
            disabled={busy || disabled}
            autoFocus={focusSubmit}
          >
            {submitLabel}
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
