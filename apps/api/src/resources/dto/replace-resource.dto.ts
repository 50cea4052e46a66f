import { OmitType } from '@nestjs/swagger';
import { CreateResourceDto } from './create-resource.dto';

/**
 * Body of `PUT /resources/{id}`: the whole writable content, validated as on create. Omitted
 * optional fields go back to their defaults; `status` is kept (change it with PATCH), and the
 * organization cannot be changed.
 */
export class ReplaceResourceDto extends OmitType(CreateResourceDto, ['organization_id'] as const) {}
