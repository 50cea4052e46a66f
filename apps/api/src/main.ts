import 'reflect-metadata';
import { AppConfig } from '@app/config';
import { createApiApp } from './app.setup';

async function bootstrap(): Promise<void> {
  const app = await createApiApp();
  const config = app.get(AppConfig);
  await app.listen(config.PORT);
}

void bootstrap();
