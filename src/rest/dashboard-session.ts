// The dashboard's sign-in routes under /dashboard/api: login, the current session (workspace and
// environment switch) and logout. JSON in and out; errors in the API's envelope, as on REST.
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { LoginLimits } from '../auth/login-limits.ts';
import { PASSWORD_MAX } from '../auth/passwords.ts';
import { issueCsrfToken, isValidCsrfToken, SESSION_COOKIE, type Session, type SessionStore } from '../auth/sessions.ts';
import { matchCredentials } from '../auth/sign-in.ts';
import { AppError } from '../errors.ts';
import { sendError } from './errors.ts';
import { assertStorable } from '../schema/common/storable.ts';
import { parseInput } from '../schema/common/validation.ts';
import { CsrfRefusal } from '../http/auth.ts';
import { bodyErrors, jsonBody, requireJson } from '../http/body.ts';

const loginInput = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(320, 'must be at most 320 characters'),
  password: z.string().min(1, 'is required').max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`),
});

const switchInput = z.strictObject({
  workspace_id: z.string().max(100).optional(),
  environment: z.enum(['production', 'sandbox']).optional(),
});

const wrongCredentials = () => new AppError('unauthorized', 'The e-mail address or password is wrong');
const signedOut = () => new AppError('unauthorized', 'Not signed in, or the session has ended');

declare module 'express-serve-static-core' {
  interface Locals {
    session?: { token: string; session: Session };
  }
}

/** The session body the session routes answer with, holding a fresh CSRF token. */
export async function sessionAnswer(sessions: SessionStore, token: string, session: Session) {
  return {
    user: { id: session.user.id, name: session.user.name, email: session.user.email },
    workspaces: await sessions.workspacesOf(session),
    workspace: { id: session.user.workspace.id, name: session.user.workspace.name },
    environment: session.sandbox ? 'sandbox' : 'production',
    csrf_token: issueCsrfToken(token),
  };
}

/** Signs in: a new session for `userIds` on `userId`'s workspace, its cookie set; the session body. */
export async function startSession(
  req: Request,
  res: Response,
  sessions: SessionStore,
  userIds: string[],
  userId: string,
) {
  const { token, session } = await sessions.create(userIds, userId);
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: req.secure,
    maxAge: sessions.times.maxAgeMs,
  });
  return sessionAnswer(sessions, token, session);
}

export function dashboardSessionRoutes(deps: { sessions: SessionStore; loginLimits: LoginLimits }): Router {
  const { sessions, loginLimits } = deps;
  const router = Router();
  router.use((_req, res, next) => {
    // Answers carry the CSRF token: never cached, by the browser or anything in between.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(requireJson, jsonBody('16kb'), bodyErrors, (req: Request, _res: Response, next: NextFunction) => {
    assertStorable(req.body);
    next();
  });

  const sessionBody = (token: string, session: Session) => sessionAnswer(sessions, token, session);

  /** Loads the cookie's session; state-changing requests must also carry its CSRF token. */
  const signedIn = (opts: { csrf: boolean }) => async (req: Request, res: Response, next: NextFunction) => {
    const token: string | undefined = req.cookies?.[SESSION_COOKIE];
    const session = await sessions.find(token);
    if (!session) return sendError(res, signedOut());
    if (opts.csrf && !isValidCsrfToken(token!, req.get('x-csrf-token'))) return sendError(res, new CsrfRefusal());
    res.locals.session = { token: token!, session };
    next();
  };

  router.post('/login', async (req, res) => {
    const input = parseInput(loginInput, req.body ?? {});
    const address = req.ip ?? 'unknown';
    const decision = await loginLimits.attempt(input.email, address);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfter));
      return sendError(
        res,
        new AppError('rate_limited', `Too many sign-in attempts; retry in ${decision.retryAfter} s`),
      );
    }
    const userIds = await matchCredentials(sessions.prisma, input.email, input.password);
    if (userIds.length === 0) return sendError(res, wrongCredentials());
    await loginLimits.succeeded(input.email, address);
    res.json(await startSession(req, res, sessions, userIds, userIds[0]));
  });

  router.get('/session', signedIn({ csrf: false }), async (_req, res) => {
    const { token, session } = res.locals.session!;
    res.json(await sessionBody(token, session));
  });

  router.post('/session', signedIn({ csrf: true }), async (req, res) => {
    const input = parseInput(switchInput, req.body ?? {});
    const { token, session } = res.locals.session!;
    const change: { userId?: string; sandbox?: boolean } = {};
    if (input.workspace_id !== undefined) {
      const user = await sessions.prisma.user.findFirst({
        where: { id: { in: session.userIds }, workspaceId: input.workspace_id, active: true },
        select: { id: true },
      });
      if (!user)
        return sendError(res, new AppError('not_found', `Workspace ${input.workspace_id} not found among yours`));
      change.userId = user.id;
    }
    if (input.environment !== undefined) change.sandbox = input.environment === 'sandbox';
    res.json(await sessionBody(token, await sessions.update(session, change)));
  });

  router.post('/logout', signedIn({ csrf: true }), async (req, res) => {
    await sessions.delete(res.locals.session!.session);
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure });
    res.status(204).end();
  });

  router.use((req, res) =>
    sendError(res, new AppError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`)),
  );
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AppError) return sendError(res, err);
    next(err);
  });
  return router;
}
