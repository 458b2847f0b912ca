// A new contact, from the contacts list: saved, it opens on its own page.
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { useTitle } from '../lib/use-title.ts';
import { ContactForm, EMPTY_CONTACT } from './contact-form.tsx';

export function ContactNewPage() {
  useTitle('New contact');
  const { route } = useLocation();
  const create = async (input: Record<string, unknown>) => {
    const { createContact } = await gql<{ createContact: { id: string } }>(
      'mutation ($input: ContactCreateInput!) { createContact(input: $input) { id } }',
      { input },
    );
    route(`/dashboard/contacts/${createContact.id}`);
  };
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/contacts">Contacts</a> /
      </p>
      <h1>New contact</h1>
      <ContactForm initial={EMPTY_CONTACT} submitLabel="Create contact" onSubmit={create} />
    </>
  );
}
