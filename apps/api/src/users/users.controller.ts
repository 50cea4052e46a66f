import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@app/common';
import { Auth } from '../common/decorators/auth.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { ApiErrors, ApiDataResponse } from '../common/openapi/api-responses';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { UsersService } from './users.service';
import { UserView } from './user.view';

@ApiTags('Users')
@ApiBearerAuth()
@ScopeArea('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get('me')
  @ApiOperation({ summary: 'The calling user' })
  @ApiDataResponse(UserView)
  @ApiErrors(401)
  me(@Auth() auth: AuthContext): Promise<UserView> {
    return this.users.get(auth.userId);
  }

  @Patch('me')
  @ApiOperation({ summary: "Update the calling user's profile", description: 'Emits `user.updated` with `previous_data`.' })
  @ApiDataResponse(UserView)
  @ApiErrors(400, 401)
  updateMe(@Auth() auth: AuthContext, @Body() body: UpdateProfileDto): Promise<UserView> {
    return this.users.updateProfile(auth.userId, body.profile);
  }
}
