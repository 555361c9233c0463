/**
 * A failure the caller caused or may act on. It travels back in the spec's
 * envelope `{success:false, error}` with its status; anything else is a 500.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const badRequest = (message: string) => new ServiceError(400, message);
export const unauthorized = (message: string) => new ServiceError(401, message);
export const forbidden = (message: string) => new ServiceError(403, message);
export const notFound = (message: string) => new ServiceError(404, message);
export const conflict = (message: string) => new ServiceError(409, message);
export const unprocessable = (message: string) => new ServiceError(422, message);
