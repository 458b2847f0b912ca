import { ApiError } from '../api/errors.ts';

/** An error as the server explained it, with the fields it named. Announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError && error.details ? Object.entries(error.details) : [];
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {details.length > 0 && (
        <ul>
          {details.map(([field, problems]) => (
            <li key={field}>
              <code>{field}</code> {problems.join('; ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
