import { Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ResourceNotFoundError } from '@app/common';
import { BeforeSignIn } from '../access/console-session.guard';
import { ConsolePages } from '../console-pages.decorator';
import { CONSOLE_ASSETS } from './assets/console-assets';

/** The console's stylesheet, script and icon; their names change with their content, so they are cached for good. */
@ConsolePages('assets')
@BeforeSignIn()
export class ConsoleAssetsController {
  @Get(':file')
  serve(@Param('file') file: string, @Res() res: Response): void {
    const asset = CONSOLE_ASSETS.get(file);
    if (!asset) throw new ResourceNotFoundError('Console file', file);
    res
      .status(200)
      .set({ 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' })
      .send(asset.body);
  }
}
