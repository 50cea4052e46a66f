import { Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@app/common';
import { Auth } from '../common/decorators/auth.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors } from '../common/openapi/api-responses';
import { AdminUsersService } from './admin-users.service';
import { AdminUpdateUserDto } from './dto/admin-update-user.dto';
import { UserView } from './user.view';

@ApiTags('Users')
@ScopeArea('users')
@Controller('users')
export class AdminUsersController {
  constructor(private readonly adminUsers: AdminUsersService) {}

  @Patch(':id')
  @ApiOperation({
    summary: "Change a user's role or plan (platform admins)",
    description: 'Emits `user.updated` with `previous_data`. The new plan sets the rate limit within seconds.',
  })
  @ApiDataResponse(UserView)
  @ApiErrors(400, 401, 403, 404, 429)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: AdminUpdateUserDto): Promise<UserView> {
    return this.adminUsers.changeAccount(auth, id, body);
  }
}
