import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { UsersModule } from '../users/users.module';
import { AccountAdministration } from './account-administration.service';

/** What the commands that work on data use: the API's database and services. */
@Module({
  imports: [ConfigModule, DatabaseModule, UsersModule],
  providers: [AccountAdministration],
})
export class CliDataModule {}
