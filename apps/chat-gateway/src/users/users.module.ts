import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BootstrapAdmin } from './bootstrap-admin';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AuthModule],
  controllers: [UsersController],
  providers: [UsersService, UsersRepository, BootstrapAdmin],
})
export class UsersModule {}
