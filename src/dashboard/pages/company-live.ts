// The company page live: what a change made elsewhere means for the page (the companyChanged
// subscription), applied at once, or held back while an inline editor is open.
import { useEffect, useRef, useState } from 'preact/hooks';
import { subscribe } from '../api/live.ts';

export interface CompanyChange {
  event: string;
  company_id: string;
  data: {
    company?: { id: string; name: string; version: number };
    merged_company?: { id: string };
  } | null;
}

/** The company shown is no more: deleted, or merged into another (which is named). */
export type Gone = { kind: 'deleted' } | { kind: 'merged'; into: { id: string; name: string } };

export type Effect = Gone | { kind: 'company' } | { kind: 'related' };

/**
 * What `change` means for the page showing company `id` at `version`: it is gone, the company
 * itself changed, its contacts or deals did, or nothing (a version the page shows already, as
 * after its own save).
 */
export function effectOf(id: string, version: number, change: CompanyChange): Effect | null {
  const company = change.data?.company;
  if (change.event === 'company.deleted' && change.company_id === id) return { kind: 'deleted' };
  if (change.event === 'company.merged' && change.data?.merged_company?.id === id)
    return { kind: 'merged', into: { id: change.company_id, name: company?.name ?? 'another company' } };
  if (!change.event.startsWith('company.')) return { kind: 'related' };
  if (change.company_id !== id || (company && company.version <= version)) return null;
  return { kind: 'company' };
}

export const watchCompany = (id: string, onData: (change: CompanyChange) => void) =>
  subscribe(
    'subscription ($id: ID) { companyChanged(id: $id) { event company_id data } }',
    { id },
    { onData: (d: { companyChanged: CompanyChange }) => onData(d.companyChanged) },
  );

export interface Live {
  /** Raised when its contacts or deals change, so that their lists load again. */
  related: number;
  /** A change to the company arrived while an editor was open; it is applied when the last one closes. */
  held: boolean;
  gone: Gone | null;
}

/**
 * Follows company `id`, shown at `version`: `reload` reads it again on a change, unless `editing`.
 * An open editor was filled from the version shown, which its save names, so that a change made
 * meanwhile is refused rather than overwritten; reloading under it would hide that.
 */
export function useCompanyLive(id: string, version: number, editing: boolean, reload: () => void): Live {
  const [related, setRelated] = useState(0);
  const [held, setHeld] = useState(false);
  const [gone, setGone] = useState<Gone | null>(null);
  const now = useRef({ version, editing, reload });
  now.current = { version, editing, reload };
  useEffect(() => {
    setHeld(false);
    setGone(null);
    return watchCompany(id, (change) => {
      const effect = effectOf(id, now.current.version, change);
      if (!effect) return;
      if (effect.kind === 'related') setRelated((n) => n + 1);
      else if (effect.kind !== 'company') setGone(effect);
      else if (now.current.editing) setHeld(true);
      else now.current.reload();
    });
  }, [id]);
  useEffect(() => {
    // A company gone is not read again: the editor it closed held back a change to nothing.
    if (editing || !held || gone) return;
    setHeld(false);
    reload();
  }, [editing, held, gone]);
  return { related, held, gone };
}
