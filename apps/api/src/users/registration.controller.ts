import { Controller, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Public } from '../platform/decorators/public.decorator';
import { ApiDataResponse, ApiErrors } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { ValidBody } from '../platform/validation/validated-parameters';
import { RegisterDto } from './dto/register.dto';
import { UsersService } from './users.service';
import { UserView } from './user.view';

/** Sign-up lives with the users it makes, at the path the contract gives it. */
@ApiTag('Authentication')
@Controller('auth')
export class RegistrationController {
  constructor(private readonly users: UsersService) {}

  @Public()
  @Post('register')
  @ApiOperation({
    operationId: 'registerUser',
    summary: 'Create an account',
    description:
      'The account is a `user` on the `free` plan; `role` and `plan` are not accepted here. ' +
      'A taken email (compared case-insensitively) or username is 409 `conflict`. Emits `user.created`.',
  })
  @ApiDataResponse(UserView, 201, 'The new user')
  @ApiErrors(400, 409, 429)
  register(@ValidBody() body: RegisterDto): Promise<UserView> {
    return this.users.create(body);
  }

}
