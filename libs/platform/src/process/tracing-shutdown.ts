import { stopTracing } from '@echoloop/tracing';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';

/** The spans still buffered are sent before the app exits (nothing to do while tracing is off). */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
