/** The OpenAPI document as the gateway's finishing steps edit it. */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, edited in place by the finishing steps
export type OpenApiObject = { paths?: Record<string, Record<string, any>>; [key: string]: unknown };
