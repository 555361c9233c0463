import { readEnv } from '@clinic/service-kit/internal';
import { START_ENV } from '../src/start-env';

describe('what npm start hands the services', () => {
  it('sets the clinic in Colombo unless CLINIC_TZ says otherwise, whatever the machine’s zone', () => {
    expect(readEnv(START_ENV, {}).CLINIC_TZ).toBe('Asia/Colombo');
    expect(readEnv(START_ENV, { CLINIC_TZ: 'Asia/Kolkata' }).CLINIC_TZ).toBe('Asia/Kolkata');
  });
});
