import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/** Opts a route out of authentication on purpose (health, metrics, login). Everything else is guarded. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
