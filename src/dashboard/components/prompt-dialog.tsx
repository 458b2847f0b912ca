// A modal question with one optional text answer (a move note, a won or lost reason): a FormDialog
// whose one field is that answer.
import { useState } from 'preact/hooks';
import { FormDialog } from './form-dialog.tsx';

export interface PromptDialogProps {
  title: string;
  fieldLabel: string;
  submitLabel: string;
  onSubmit(text: string): Promise<void>;
  onClose(): void;
}

export function PromptDialog({ title, fieldLabel, submitLabel, onSubmit, onClose }: PromptDialogProps) {
  const [text, setText] = useState('');
  return (
    <FormDialog
      title={title}
      submitLabel={submitLabel}
      focusSubmit
      onSubmit={() => onSubmit(text.trim())}
      onClose={onClose}
    >
      <label>
        {fieldLabel} <span class="hint">(optional)</span>
        <textarea rows={3} maxLength={1000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
    </FormDialog>
  );
}
