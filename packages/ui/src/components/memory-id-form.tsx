// The form at the head of a view that shows one memory's picture (its
// provenance, its reads): a memory id typed or pasted, then the view opened
// for the owner and that id, so the address bar holds it.
import { useState } from 'preact/hooks';
import { navigate, type ViewName } from '../router.ts';

export function MemoryIdForm(p: {
  view: ViewName;
  owner: string;
  /** The input's id (the label points at it). */
  inputId: string;
  /** The id the form starts with (none: empty). */
  initial?: string | null;
  placeholder?: string;
  /** The submit button's text. */
  action: string;
  /** Whether an empty id opens the view without one (else the form waits for an id). */
  emptyOpens?: boolean;
}) {
  const [typed, setTyped] = useState(p.initial ?? '');
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        const id = typed.trim();
        if (id || p.emptyOpens) navigate(p.view, { owner: p.owner, id: id || undefined });
      }}
    >
      <label for={p.inputId}>Memory id</label>
      <input
        id={p.inputId}
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
        placeholder={p.placeholder}
      />
      <button type="submit">{p.action}</button>
    </form>
  );
}
