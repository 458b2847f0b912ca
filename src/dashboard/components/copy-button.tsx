import { useState } from 'preact/hooks';

/** Copies `text`; where the clipboard is refused, selects the text in `targetId` for Ctrl+C instead. */
export function CopyButton({ text, targetId }: { text: string; targetId: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      const target = document.getElementById(targetId);
      if (target) window.getSelection()?.selectAllChildren(target);
      setState('selected');
    }
  };
  return (
    <>
      <button type="button" onClick={copy}>
        Copy
      </button>
      <span class="hint" role="status">
        {state === 'copied'
          ? 'Copied to the clipboard.'
          : state === 'selected'
            ? 'Selected: press Ctrl+C to copy.'
            : ''}
      </span>
    </>
  );
}
