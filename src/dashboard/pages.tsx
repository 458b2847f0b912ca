// The routes under /dashboard. Focus moves to the page on navigation, as a full page load would.
import { useEffect } from 'preact/hooks';
import lazy from 'preact-iso/lazy';
import { Route, Router, useLocation } from 'preact-iso/router';
import { ErrorMessage } from './components/error-message.tsx';
import { ActivityFeedPage } from './pages/activity-feed.tsx';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { CompaniesPage } from './pages/companies.tsx';
import { CompanyPage } from './pages/company.tsx';
import { CompanyNewPage } from './pages/company-new.tsx';
import { ContactPage } from './pages/contact.tsx';
import { ContactMergePage } from './pages/contact-merge.tsx';
import { ContactNewPage } from './pages/contact-new.tsx';
import { ContactsPage } from './pages/contacts.tsx';
import { CustomFieldsPage } from './pages/custom-fields.tsx';
import { DealPage } from './pages/deal.tsx';
import { ImportsPage } from './pages/imports.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { PipelineBoardPage } from './pages/pipeline-board.tsx';
import { PipelinesPage } from './pages/pipelines.tsx';
import { TasksPage } from './pages/tasks.tsx';
import { TeamPage } from './pages/team.tsx';
import { WebhookEditPage, WebhookNewPage } from './pages/webhook-form-page.tsx';
import { WebhookPage } from './pages/webhook.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';

// The charts and their library load only when the page is opened (a failed load says so on the page).
const InsightPage = lazy(() =>
  import('./pages/insight.tsx').then(
    (m) => m.InsightPage,
    () => () => <ErrorMessage error={new Error('The Insight page could not be loaded: reload to try again.')} />,
  ),
);

function Home() {
  const { route } = useLocation();
  useEffect(() => route('/dashboard/pipeline', true), []);
  return null;
}

export function Pages() {
  const focusMain = () => document.getElementById('main')?.focus();
  return (
    <main id="main" tabIndex={-1}>
      <Router onRouteChange={focusMain}>
        <Route path="/dashboard" component={Home} />
        <Route path="/dashboard/pipeline" component={PipelineBoardPage} />
        <Route path="/dashboard/pipelines" component={PipelinesPage} />
        <Route path="/dashboard/deals/:id" component={DealPage} />
        <Route path="/dashboard/contacts" component={ContactsPage} />
        <Route path="/dashboard/contacts/new" component={ContactNewPage} />
        <Route path="/dashboard/contacts/:id" component={ContactPage} />
        <Route path="/dashboard/companies" component={CompaniesPage} />
        <Route path="/dashboard/companies/new" component={CompanyNewPage} />
        <Route path="/dashboard/companies/:id" component={CompanyPage} />
        <Route path="/dashboard/contacts/:id/merge" component={ContactMergePage} />
        <Route path="/dashboard/tasks" component={TasksPage} />
        <Route path="/dashboard/activity" component={ActivityFeedPage} />
        <Route path="/dashboard/insight" component={InsightPage} />
        <Route path="/dashboard/keys" component={ApiKeysPage} />
        <Route path="/dashboard/webhooks" component={WebhooksPage} />
        <Route path="/dashboard/webhooks/new" component={WebhookNewPage} />
        <Route path="/dashboard/webhooks/:id" component={WebhookPage} />
        <Route path="/dashboard/webhooks/:id/edit" component={WebhookEditPage} />
        <Route path="/dashboard/custom-fields" component={CustomFieldsPage} />
        <Route path="/dashboard/audit" component={AuditLogPage} />
        <Route path="/dashboard/imports" component={ImportsPage} />
        <Route path="/dashboard/team" component={TeamPage} />
        <Route default component={NotFoundPage} />
      </Router>
    </main>
  );
}
