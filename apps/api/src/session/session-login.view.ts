import { ApiProperty } from '@nestjs/swagger';
import { UserView } from '../users/user.view';

export class SessionLoginView {
  @ApiProperty({ type: UserView })
  user: UserView;

  @ApiProperty({
    description: 'Send it as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE made with the session cookie.',
    example: 'q8Zr2LmV0cN5xW7bT1yK4pD9sH3jF6gA2eU8iO0nB5m',
  })
  csrf_token: string;
}
