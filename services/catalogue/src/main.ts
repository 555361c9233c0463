import { startService } from '@clinic/service-kit';

void startService({ name: 'catalogue', setup: async () => ({}) });
