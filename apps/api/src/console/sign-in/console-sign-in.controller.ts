import { Get, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { clearSessionCookie, hostCookieName, hostCookieOptions, setSessionCookie } from '../../session/session-cookie';
import { SessionService } from '../../session/session.service';
import { BeforeSignIn } from '../access/console-session.guard';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { ConsolePages } from '../console-pages.decorator';
import { CONSOLE_HOME, consolePaths } from '../console-paths';
import { seeOther, sendPage } from '../rendering/page-response';
import { ConsoleSignInService, SIGN_IN_CSRF_COOKIE, SignInStep } from './console-sign-in.service';

/** The way in and out of the console: `/console`, the sign-up and sign-in pages, and signing out. */
@ConsolePages()
export class ConsoleSignInController {
  constructor(
    private readonly signIn: ConsoleSignInService,
    private readonly sessions: SessionService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  home(@Res() res: Response): void {
    seeOther(res, CONSOLE_HOME);
  }

  @Get('sign-in')
  @BeforeSignIn()
  async signInPage(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.signIn.start(req));
  }

  @Post('sign-in')
  @BeforeSignIn()
  async signInForm(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.signIn.signIn(req));
  }

  @Get('sign-up')
  @BeforeSignIn()
  async signUpPage(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.signIn.startSignUp(req));
  }

  @Post('sign-up')
  @BeforeSignIn()
  async signUpForm(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.signIn.signUp(req));
  }

  /** Ends the session everywhere, as `POST /v2/session/logout` does. */
  @Post('sign-out')
  async signOut(@SignedIn() user: SignedInUser, @Res() res: Response): Promise<void> {
    await this.sessions.logout(user.auth);
    clearSessionCookie(res, this.config);
    seeOther(res, `${consolePaths.signIn}?signed_out=1`);
  }

  private send(res: Response, step: SignInStep): void {
    const preSessionCookie = hostCookieName(this.config, SIGN_IN_CSRF_COOKIE);
    if (step.preSession) res.cookie(preSessionCookie, step.preSession, hostCookieOptions(this.config));
    else if (step.preSession === null) res.clearCookie(preSessionCookie, hostCookieOptions(this.config));
    if (step.sessionCookie) setSessionCookie(res, this.config, step.sessionCookie);
    if (step.kind === 'redirect') seeOther(res, step.location);
    else sendPage(res, step.page);
  }
}
