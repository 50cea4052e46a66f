import { Controller, Get, Patch, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuthContext, Paginated } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiErrors, ApiDataResponse, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { OffsetPageMetaView } from '../platform/pagination/page-meta.view';
import { ValidBody, ValidQuery } from '../platform/validation/validated-parameters';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { UserListQuery } from './dto/user-list.query';
import { UsersService } from './users.service';
import { UserView } from './user.view';

@ApiTag('Users')
@ApiBearerAuth()
@ScopeArea('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users',
    description:
      'Platform admins see every user; other callers see the users who share an organization with them, ' +
      'and themselves. Oldest first. `search` matches the email or username, case-insensitively.',
  })
  @ApiListResponse(UserView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: UserListQuery, @Req() req: Request): Promise<Paginated<UserView>> {
    return this.users.list(auth, query, req.path);
  }

  @Get('me')
  @ApiOperation({
    operationId: 'getCurrentUser',
    summary: 'Get the calling user',
    description: 'The account the credential acts for, whatever the credential (JWT, API key, session or OAuth token).',
  })
  @ApiDataResponse(UserView)
  @ApiErrors(401, 403, 429)
  me(@Auth() auth: AuthContext): Promise<UserView> {
    return this.users.get(auth.userId);
  }

  @Patch('me')
  @ApiOperation({
    operationId: 'updateCurrentUserProfile',
    summary: "Update the calling user's profile",
    description:
      'Only `profile` fields change; each is optional, `null` clears it, `avatar_url` must be https. ' +
      'Emits `user.updated` with `previous_data` holding the prior values of the changed fields; ' +
      'a request that changes nothing emits nothing.',
  })
  @ApiDataResponse(UserView)
  @ApiErrors(400, 401, 403, 429)
  updateMe(@Auth() auth: AuthContext, @ValidBody() body: UpdateProfileDto): Promise<UserView> {
    return this.users.updateProfile(auth.userId, body.profile);
  }
}
