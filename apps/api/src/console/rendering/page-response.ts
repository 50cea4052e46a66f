import type { Response } from 'express';
import type { RenderedPage } from '../../platform/pages/page-layout';

/** Writes a page as it is: Express's own send, so no JSON envelope is put around it. */
export function sendPage(res: Response, page: RenderedPage): void {
  res.status(page.status).set(page.headers).send(page.html);
}

/** After a form: 303, so that the browser follows with a GET and a reload sends nothing again. */
export function seeOther(res: Response, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, location);
}
