// The API reference: the OpenAPI document this instance generated at start, and Swagger UI to
// browse it, served from the swagger-ui-dist package (no CDN). Neither needs a key.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from 'express';

const require = createRequire(import.meta.url);
const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The package files the page loads; not the whole folder, whose index.html loads a remote demo document. */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>CRM API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl: null, or Swagger UI sends the document to validator.swagger.io for a badge.
const INIT =
  "window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, " +
  'validatorUrl: null });\n';

// The browser enforces what the page promises: nothing is loaded from another host.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** GET openapi.json, mounted by the caller under /v1 ahead of the key check: the document is public. */
export function openApiDocument(openapi: object) {
  const document = JSON.stringify(openapi);
  return Router().get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
}

/** The API reference page (Swagger UI, served from node_modules) under /docs. */
export function apiDocs() {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  router.get('/docs/:file', (req, res, next) => {
    if (!ASSETS.has(req.params.file)) return next();
    res.sendFile(path.join(DIST, req.params.file), { maxAge: '1h' });
  });
  return router;
}
