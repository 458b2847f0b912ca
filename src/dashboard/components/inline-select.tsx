// A labelled select that sits in a title row or a filter bar: a pipeline, a period, a status.
// The value handed back is the chosen option's own (a number stays a number).

export interface Choice<T extends string | number> {
  value: T;
  label: string;
}

export function InlineSelect<T extends string | number>({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: NoInfer<T> | undefined;
  /** The option values' type is the one the caller gets back. */
  choices: readonly Choice<T>[];
  onChange(value: NoInfer<T>): void;
}) {
  return (
    <label class="inline-field">
      {label}
      <select
        value={value}
        onChange={(e) => {
          const picked = choices.find((c) => String(c.value) === e.currentTarget.value);
          if (picked) onChange(picked.value);
        }}
      >
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
