import { useTitle } from '../lib/use-title.ts';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <a href="/dashboard/pipeline">Go to the pipeline board</a>
      </p>
    </>
  );
}
