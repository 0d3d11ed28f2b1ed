// Every /api/auth/* request goes to the standalone handler. Nothing here imports next.
import { auth } from "../../../../lib/auth.ts";

// Next calls route handlers with (request, { params }); the auth handler needs only the request.
const handle = (request: Request): Promise<Response> => auth.handler(request);

export const GET = handle;
export const POST = handle;
export const PATCH = handle;
