// Password links' routes under /dashboard/api, used signed out from the set-password page:
// `POST /password-link` says whom a link is for, `POST /password` sets the password and signs in.
// Every attempt counts against the client address's limit; a wrong, expired or used token gets
// one and the same answer.
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { LinkLimits } from '../auth/login-limits.ts';
import { findPasswordLink, invalidLink, redeemPasswordLink } from '../auth/password-links.ts';
import { PASSWORD_MAX } from '../auth/passwords.ts';
import type { SessionStore } from '../auth/sessions.ts';
import { withOrigin } from '../events/origin.ts';
import { AppError } from '../errors.ts';
import { bodyErrors, jsonBody, requireJson } from '../http/body.ts';
import { assertStorable } from '../schema/common/storable.ts';
import { parseInput } from '../schema/common/validation.ts';
import { sendError } from './errors.ts';
import { startSession } from './dashboard-session.ts';

const tokenField = z.string().max(200, 'is not a valid link');
const checkInput = z.strictObject({ token: tokenField });
const setInput = z.strictObject({
  token: tokenField,
  password: z.string().max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`),
});

export function passwordLinkRoutes(deps: { sessions: SessionStore; linkLimits: LinkLimits }): Router {
  const { sessions, linkLimits } = deps;
  const prisma = sessions.prisma;
  const router = Router();
  const json = [
    requireJson,
    jsonBody('16kb'),
    bodyErrors,
    (req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Cache-Control', 'no-store');
      assertStorable(req.body);
      next();
    },
  ];
  const limited = async (req: Request, res: Response, next: NextFunction) => {
    const decision = await linkLimits.attempt(req.ip ?? 'unknown');
    if (decision.allowed) return next();
    res.setHeader('Retry-After', String(decision.retryAfter));
    sendError(res, new AppError('rate_limited', `Too many attempts; retry in ${decision.retryAfter} s`));
  };

  router.post('/password-link', ...json, limited, async (req: Request, res: Response) => {
    const input = parseInput(checkInput, req.body ?? {});
    const link = await findPasswordLink(prisma, input.token);
    if (!link) throw invalidLink();
    res.json({
      purpose: link.purpose,
      user: { name: link.user.name, email: link.user.email },
      expires_at: link.expiresAt.toISOString(),
    });
  });

  router.post('/password', ...json, limited, async (req: Request, res: Response) => {
    const input = parseInput(setInput, req.body ?? {});
    const link = await findPasswordLink(prisma, input.token);
    if (!link) throw invalidLink();
    const origin = { via: 'dashboard' as const, requestId: res.locals.requestId ?? null, ip: req.ip ?? null };
    const userIds = await withOrigin(origin, () => redeemPasswordLink(prisma, link, input.password));
    res.json(await startSession(req, res, sessions, userIds, link.user.id));
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AppError) return sendError(res, err);
    next(err);
  });
  return router;
}
