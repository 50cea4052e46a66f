import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabasePreparer } from '@app/database';

/** What `db:prepare` uses: no database connection, since the database may not exist yet. */
@Module({
  imports: [ConfigModule],
  providers: [DatabasePreparer],
})
export class DatabasePreparationModule {}
