// GraphiQL at GET /graphql (a browser asking for HTML), served from the installed
// @graphql-yoga/render-graphiql package instead of yoga's page, which loads its code from a CDN.
// The package holds GraphiQL's script, style sheet and editor workers as strings: each is served
// as a file of its own under /graphql/graphiql/, so the page runs under a policy that allows
// scripts from this origin only (no inline script) and loads nothing from another host.
import { createRequire } from 'node:module';
import { Router, type Request } from 'express';

const require = createRequire(import.meta.url);
/** In the asset paths, so a new package version is never answered from a stale cache. */
const VERSION = (require('@graphql-yoga/render-graphiql/package.json') as { version: string }).version;
const BASE = `/graphql/graphiql/${VERSION}`;

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

/**
 * The package's files, by the name they are served under. The module is about 9 MB of strings:
 * it is imported on the first request for one of them, never by a server nobody opens GraphiQL on.
 */
const ASSETS: Record<string, { type: string; body: (b: Bundle) => string | Buffer }> = {
  'graphiql.js': { type: 'text/javascript', body: (b) => b.js },
  'graphiql.css': { type: 'text/css', body: (b) => b.css },
  'editor.worker.js': { type: 'text/javascript', body: (b) => b.editorWorkerService },
  'json.worker.js': { type: 'text/javascript', body: (b) => b.jsonWorker },
  'graphql.worker.js': { type: 'text/javascript', body: (b) => b.graphqlWorker },
  'favicon.ico': {
    type: 'image/x-icon',
    body: (b) => Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64'),
  },
};

/** GraphiQL's settings: the headers editor opens with the header a key goes in. */
const OPTIONS = {
  title: 'CRM GraphQL',
  endpoint: '/graphql',
  headers: JSON.stringify({ Authorization: 'Bearer crm_live_...' }, null, 2),
  defaultEditorToolsVisibility: 'headers',
};

// The editor's workers by the label Monaco asks for, then GraphiQL itself.
const WORKER_FILE = "({ json: '/json.worker.js', graphql: '/graphql.worker.js' }[label] || '/editor.worker.js')";
const INIT = `self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (_moduleId, label) {
    return ${JSON.stringify(BASE)} + ${WORKER_FILE};
  },
};
YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${JSON.stringify(OPTIONS)});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${OPTIONS.title}</title>
  <link rel="icon" href="${BASE}/favicon.ico">
  <link rel="stylesheet" href="${BASE}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
  <noscript>GraphiQL needs JavaScript.</noscript>
  <div id="root"></div>
  <script src="${BASE}/graphiql.js"></script>
  <script src="${BASE}/init.js"></script>
</body>
</html>
`;

/**
 * Scripts and workers from this origin only. Styles may be inline: the editor (Monaco) writes its
 * own <style> elements as it runs. Fonts and icons come inside the style sheet as data: URLs.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A browser opening /graphql: a GET that prefers HTML to JSON. The page needs no key; its queries do. */
export const isGraphiqlPage = (req: Request): boolean =>
  req.method === 'GET' && req.accepts(['application/json', 'text/html']) === 'text/html';

/** GraphiQL's page and files; mount ahead of /graphql itself, only when GraphiQL is enabled. */
export function graphiqlRoutes() {
  let bundle: Promise<Bundle> | undefined;
  const router = Router();
  router.get('/graphql', (req, res, next) => {
    if (!isGraphiqlPage(req)) return next();
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(PAGE);
  });
  router.get(`${BASE}/init.js`, (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  router.get(`${BASE}/:file`, async (req, res, next) => {
    const asset = ASSETS[req.params.file];
    if (!asset || !Object.hasOwn(ASSETS, req.params.file)) return next();
    try {
      bundle ??= import('@graphql-yoga/render-graphiql/graphiql');
      const body = asset.body(await bundle);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.type(asset.type).send(body);
    } catch (err) {
      bundle = undefined;
      next(err);
    }
  });
  return router;
}
