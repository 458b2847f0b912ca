import { CopyButton } from './copy-button.tsx';

/** A key or signing secret that the server returns only once. */
export function SecretOnce({ label, value, id }: { label: string; value: string; id: string }) {
  return (
    <section class="secret" aria-labelledby={`${id}-label`}>
      <h2 id={`${id}-label`}>{label}</h2>
      <p>Copy it now: it is not stored in a readable form and will not be shown again.</p>
      <p class="secret-value">
        <code id={id} data-testid={id}>
          {value}
        </code>
        <CopyButton text={value} targetId={id} />
      </p>
    </section>
  );
}
