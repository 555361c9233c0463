import { startService } from '@clinic/service-kit';

void startService({ name: 'billing', setup: async () => ({}) });
