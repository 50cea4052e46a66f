import { Controller, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { idPattern } from '@app/common';
import type { AuthContext } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { ValidBody } from '../platform/validation/validated-parameters';
import { AdminUsersService } from './admin-users.service';
import { AdminUpdateUserDto } from './dto/admin-update-user.dto';
import { UserView } from './user.view';

@ApiTag('Users')
@ScopeArea('users')
@Controller('users')
export class AdminUsersController {
  constructor(private readonly adminUsers: AdminUsersService) {}

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateUser',
    summary: "Change a user's role or plan (platform admins)",
    description: 'Emits `user.updated` with `previous_data`. The new plan sets the rate limit within seconds.',
  })
  @ApiParam({ name: 'id', description: 'The user (`usr_`).', schema: { type: 'string', pattern: idPattern('usr'), example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' } })
  @ApiDataResponse(UserView)
  @ApiErrors(400, 401, 403, 404, 429)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: AdminUpdateUserDto): Promise<UserView> {
    return this.adminUsers.changeAccount(auth, id, body);
  }
}
