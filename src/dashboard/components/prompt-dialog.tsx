// A modal question with one optional text answer (a move note, a won or lost reason), on the
// native <dialog>: it keeps focus inside, and Escape cancels.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from './error-message.tsx';

export interface PromptDialogProps {
  title: string;
  fieldLabel: string;
  submitLabel: string;
  onSubmit(text: string): Promise<void>;
  onClose(): void;
}

export function PromptDialog({ title, fieldLabel, submitLabel, onSubmit, onClose }: PromptDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
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
      await onSubmit(text.trim());
      onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby="prompt-title">
      <form onSubmit={submit} class="stack">
        <h2 id="prompt-title">{title}</h2>
        <label>
          {fieldLabel} <span class="hint">(optional)</span>
          <textarea rows={3} maxLength={1000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy} autoFocus>
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
