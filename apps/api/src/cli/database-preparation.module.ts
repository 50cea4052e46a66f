import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabasePreparer } from '@app/database';
import { DbPrepareCommand } from './db-prepare.command';

/** `db:prepare` and what it needs: no database connection, since the database may not exist yet. */
@Module({
  imports: [ConfigModule],
  providers: [DbPrepareCommand, DatabasePreparer],
})
export class DatabasePreparationModule {}
