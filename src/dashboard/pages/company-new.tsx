// A new company, from the companies list: saved, it opens on its own page.
import { useLocation } from 'preact-iso/router';
import { useTitle } from '../lib/use-title.ts';
import { CompanyForm } from './company-form.tsx';
import { createCompany } from './company-model.ts';

export function CompanyNewPage() {
  useTitle('New company');
  const { route } = useLocation();
  const create = async (input: Record<string, unknown>) => {
    const { id } = await createCompany(input);
    route(`/dashboard/companies/${id}`);
  };
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/companies">Companies</a> /
      </p>
      <h1>New company</h1>
      <CompanyForm submitLabel="Create company" onSubmit={create} />
    </>
  );
}
