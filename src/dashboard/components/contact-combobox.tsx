// A contact found by typing part of a name or e-mail: an ARIA 1.2 combobox (the input) with a listbox
// of up to 10 matches (searchContacts). @github/combobox-nav does the keyboard and ARIA part: arrow keys
// move through the matches, Enter or a click picks one. Escape closes the list; typing again drops the pick.
import Combobox from '@github/combobox-nav';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { fullName } from '../lib/format.ts';
import { ErrorMessage } from './error-message.tsx';

export interface ContactOption {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

/** Typing pauses this long before the search runs. */
const SEARCH_DELAY_MS = 250;

export const findContacts = (q: string) =>
  gql<{ searchContacts: { nodes: ContactOption[] } }>(
    'query ($q: String!) { searchContacts(q: $q, limit: 10) { nodes { id first_name last_name email } } }',
    { q },
  ).then((d) => d.searchContacts.nodes);

const optionText = (c: ContactOption) => `${fullName(c)}${c.email ? ` (${c.email})` : ''}`;

export function ContactCombobox({
  id,
  label,
  picked,
  onPick,
}: {
  id: string;
  label: string;
  picked: ContactOption | null;
  onPick: (c: ContactOption | null) => void;
}) {
  const [text, setText] = useState(picked ? optionText(picked) : '');
  const [matches, setMatches] = useState<ContactOption[] | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const nav = useRef<Combobox>(null);
  const listId = `${id}-list`;
  const expanded = open && !!matches?.length;

  useEffect(() => {
    const term = text.trim();
    if (!term || (picked && text === optionText(picked))) {
      setMatches(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      findContacts(term).then(
        (found) => {
          if (!current) return;
          setMatches(found);
          setOpen(true);
          setError(null);
        },
        (err) => current && setError(err),
      );
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text]);

  // combobox-nav owns the input's role and aria-expanded/-controls/-activedescendant and the options'
  // aria-selected, so none of them is rendered here: Preact's re-renders would undo what it sets.
  useLayoutEffect(() => {
    const combobox = new Combobox(input.current!, list.current!, { tabInsertsSuggestions: false });
    nav.current = combobox;
    return () => combobox.destroy();
  }, []);

  // Layout effect: the options are in the page and visible (combobox-nav skips hidden ones) before
  // anyone can press a key, so Enter right after the results appear picks the first.
  useLayoutEffect(() => {
    const combobox = nav.current!;
    const listbox = list.current!;
    if (!expanded || !matches) return;
    const commit = (e: Event) => choose(matches[Number((e.target as HTMLElement).dataset.index)]);
    listbox.addEventListener('combobox-commit', commit);
    // start() clears what was selected among the old options; the first match becomes the active one.
    combobox.start();
    combobox.navigate(1);
    return () => {
      listbox.removeEventListener('combobox-commit', commit);
      combobox.stop();
    };
  }, [expanded, matches]);

  const choose = (c: ContactOption) => {
    onPick(c);
    setText(optionText(c));
    setMatches(null);
    setOpen(false);
  };

  // The keys combobox-nav leaves alone: Escape (it only clears the selection) and arrows on a closed list.
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && expanded) {
      // Closes the list only, not a surrounding <dialog>.
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !expanded && matches?.length) {
      e.preventDefault();
      setOpen(true);
    }
  };

  return (
    <div class="combobox">
      <label for={id}>{label}</label>
      <input
        ref={input}
        id={id}
        type="text"
        autoComplete="off"
        placeholder="Type a name or email"
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          if (picked) onPick(null);
        }}
        onKeyDown={keys}
        onBlur={() => setOpen(false)}
      />
      <div
        ref={list}
        id={listId}
        role="listbox"
        aria-label={`${label}: matches`}
        class="combobox-list"
        hidden={!expanded}
        // Keeps the focus in the input: its blur would close the list before the click picks an option.
        onMouseDown={(e) => e.preventDefault()}
      >
        {matches?.map((c, i) => (
          <div key={c.id} tabIndex={-1} id={`${listId}-${i}`} role="option" data-index={i}>
            {optionText(c)}
          </div>
        ))}
      </div>
      <p class="hint" role="status">
        {matches?.length === 0 ? 'No contact matches.' : picked ? `Chosen: ${fullName(picked)}` : ''}
      </p>
      <ErrorMessage error={error} />
    </div>
  );
}
