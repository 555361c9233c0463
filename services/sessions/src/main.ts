import { startService } from '@clinic/service-kit';

void startService({ name: 'sessions', setup: async () => ({}) });
